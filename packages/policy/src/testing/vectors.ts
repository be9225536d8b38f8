import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

// Loads the shared vectors (../../vectors), the same files agent/internal/policy reads. Their
// own shape is checked here so a malformed vector fails loudly instead of testing nothing.

const vectorsDir = fileURLToPath(new URL("../../vectors/", import.meta.url));

const expectedProblem = z.strictObject({ path: z.string(), code: z.string() });

const onePolicy = (vector: { policy?: unknown; policyText?: string | undefined }) =>
  "policy" in vector !== (vector.policyText !== undefined);
const onePolicyMessage = { message: "a vector has exactly one of policy and policyText" };

export const validVector = z
  .strictObject({
    description: z.string().min(1),
    policy: z.unknown().optional(),
    policyText: z.string().optional(),
    normalised: z.record(z.string(), z.unknown()),
  })
  .refine(onePolicy, onePolicyMessage);

export const invalidVector = z
  .strictObject({
    description: z.string().min(1),
    policy: z.unknown().optional(),
    policyText: z.string().optional(),
    errors: z.array(expectedProblem).min(1),
  })
  .refine(onePolicy, onePolicyMessage);

export const mergeVector = z.strictObject({
  description: z.string().min(1),
  layers: z.array(z.record(z.string(), z.unknown())).min(1),
  merged: z.record(z.string(), z.unknown()),
  normalised: z.record(z.string(), z.unknown()).optional(),
  errors: z.array(expectedProblem).min(1).optional(),
});

export const pathMatchingVectors = z.strictObject({
  description: z.string(),
  patterns: z.array(z.strictObject({ pattern: z.string(), path: z.string(), matches: z.boolean() })).min(1),
  managed: z
    .array(z.strictObject({ include: z.array(z.string()), exclude: z.array(z.string()), path: z.string(), managed: z.boolean() }))
    .min(1),
});

export const budgetVectors = z.strictObject({
  description: z.string(),
  cases: z
    .array(
      z.strictObject({
        description: z.string(),
        readCache: z.record(z.string(), z.unknown()),
        memAvailableBytes: z.number().int(),
        budgetBytes: z.number().int(),
      }),
    )
    .min(1),
});

/** Every vector in a folder (valid, invalid, merge), parsed with its schema, by file name. */
export function loadVectors<T>(folder: string, schema: z.ZodType<T>): Array<{ name: string; vector: T }> {
  const dir = `${vectorsDir}${folder}/`;
  const names = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort();
  if (names.length === 0) throw new Error(`no vectors in ${dir}`);
  return names.map((name) => ({ name, vector: schema.parse(JSON.parse(readFileSync(dir + name, "utf8"))) }));
}

/** One vector file at the top of the folder, parsed with its schema. */
export function loadVectorFile<T>(name: string, schema: z.ZodType<T>): T {
  return schema.parse(JSON.parse(readFileSync(vectorsDir + name, "utf8")));
}

/** The bytes of a vector's policy as the agent would receive them. */
export function policyText(vector: { policy?: unknown; policyText?: string | undefined }): string {
  return vector.policyText ?? JSON.stringify(vector.policy);
}
