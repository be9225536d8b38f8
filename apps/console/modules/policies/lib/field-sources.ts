import { formatPath } from "@spindle/policy";
import type { EffectiveLayer, FieldSource } from "../types/policy";

type Segment = string | number;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a layer sets the value at `segments` itself (as opposed to inheriting it). */
function layerSets(document: unknown, segments: readonly Segment[]): boolean {
  let current: unknown = document;
  for (const segment of segments) {
    if (!isPlainObject(current) || !Object.hasOwn(current, segment)) return false;
    current = current[segment as string];
    if (current === undefined) return false;
  }
  return true;
}

/**
 * Every value of the effective policy with the layer that set it: the last layer that sets a
 * field wins (mergePolicies' rule), and a field no layer sets is the schema's default (source
 * null). Lists are one value each, because a layer replaces a list as a whole.
 */
export function fieldSources(effective: unknown, layers: readonly EffectiveLayer[]): FieldSource[] {
  const fields: FieldSource[] = [];
  const visit = (value: unknown, segments: Segment[]) => {
    if (isPlainObject(value) && segments.length < 8) {
      for (const [key, member] of Object.entries(value)) visit(member, [...segments, key]);
      return;
    }
    const setter = [...layers].reverse().find((layer) => layerSets(layer.document, segments));
    fields.push({ path: formatPath(segments), value, source: setter?.source ?? null });
  };
  visit(effective, []);
  return fields;
}
