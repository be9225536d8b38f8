import { parsePolicy, type Policy } from "@spindle/policy";

const parsed = parsePolicy({ schemaVersion: 1 });
if (!parsed.ok) throw new Error("@spindle/policy refuses its own empty policy; rebuild packages/policy");

/** Every default of the schema: what a field is when no layer sets it. */
export const policyDefaults: Policy = parsed.policy;
