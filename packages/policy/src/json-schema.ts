import { z } from "zod";
import { policySchema } from "./schema.js";

export const policySchemaId = "https://schemas.spindle.io/policy/v1.json";

/**
 * The policy as JSON Schema (draft 2020-12), for editors and non-TypeScript tools. It describes
 * what people write (defaults shown, every field optional but schemaVersion). It cannot express
 * the path rules in full or the cross-field rules: parsePolicy and the Go agent remain the judge.
 */
export function policyJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(policySchema, { io: "input", target: "draft-2020-12" });
  return { ...generated, $id: policySchemaId };
}

/** The exact text of policy.schema.json, so the build and the up-to-date test agree byte for byte. */
export function policyJsonSchemaText(): string {
  return `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;
}
