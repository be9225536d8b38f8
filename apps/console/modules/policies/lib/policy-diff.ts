import { formatPath } from "@spindle/policy";
import { orderLikeSchema } from "./display-order";

export interface DiffEntry {
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

type Segment = string | number;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(orderLikeSchema(a)) === JSON.stringify(orderLikeSchema(b));
}

/**
 * What changed between two versions of a policy layer, field by field in the schema's order.
 * A list is one value (a layer replaces lists whole), so a changed list shows both lists.
 */
export function diffPolicyDocuments(before: unknown, after: unknown): DiffEntry[] {
  const entries: DiffEntry[] = [];
  const visit = (a: unknown, b: unknown, segments: Segment[]) => {
    // A section added or removed whole is listed field by field, like any other change.
    if ((isPlainObject(a) || a === undefined) && (isPlainObject(b) || b === undefined) && a !== b) {
      const left = (a ?? {}) as Record<string, unknown>;
      const right = (b ?? {}) as Record<string, unknown>;
      const keys = [...Object.keys(right), ...Object.keys(left).filter((key) => !(key in right))];
      for (const key of keys) visit(left[key], right[key], [...segments, key]);
      return;
    }
    const path = formatPath(segments);
    if (a === undefined && b !== undefined) entries.push({ path, kind: "added", after: b });
    else if (a !== undefined && b === undefined) entries.push({ path, kind: "removed", before: a });
    else if (!sameValue(a, b)) entries.push({ path, kind: "changed", before: a, after: b });
  };
  visit(orderLikeSchema(before), orderLikeSchema(after), []);
  return entries;
}
