// The raw views of a policy layer: JSON, or YAML for people who keep configuration in YAML.
// Both parse to the same document, which validatePolicyLayer then checks like the form's.
import type { Problem } from "@spindle/policy";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { orderLikeSchema } from "./display-order";

export type RawFormat = "json" | "yaml";

export const rawFormatLabel: Record<RawFormat, string> = { json: "JSON", yaml: "YAML" };

/** The document in the schema's key order, in the given format. */
export function formatRaw(document: unknown, format: RawFormat): string {
  const ordered = orderLikeSchema(document);
  return format === "json" ? JSON.stringify(ordered, null, 2) : stringifyYaml(ordered);
}

/**
 * A problem the raw views show: the policy's own problems, or a syntax error of the text (a
 * console concern: agents only ever receive JSON, so YAML has no code in @spindle/policy).
 */
export type RawProblem = Pick<Problem, "path" | "message"> & { code: Problem["code"] | "invalid_yaml" };

export type RawParse = { ok: true; value: unknown } | { ok: false; problem: RawProblem };

/** Parses a raw view; a syntax error becomes a problem on the whole document. */
export function parseRaw(text: string, format: RawFormat): RawParse {
  try {
    // YAML: duplicate keys and anything but plain JSON-compatible values are errors.
    const value: unknown = format === "json" ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true, schema: "core" });
    return { ok: true, value };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, problem: { path: "", code: `invalid_${format}`, message: `is not valid ${rawFormatLabel[format]}: ${reason}` } };
  }
}
