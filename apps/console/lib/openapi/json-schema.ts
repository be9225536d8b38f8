// zod's own JSON Schema output (draft 2020-12, the dialect OpenAPI 3.1 uses), tidied for an
// OpenAPI document: no per-schema $schema, and date-times described by their format alone.
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if (key === "pattern" && (node as { format?: unknown }).format === "date-time") continue;
    out[key] = tidy(value);
  }
  return out;
}

/** `io: "input"` for what clients send (defaults are optional), `"output"` for what they receive. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return tidy(z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" })) as JsonSchema;
}
