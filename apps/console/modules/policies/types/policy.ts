// What the policy API accepts (zod) and answers (types). The policy document itself is checked by
// @spindle/policy, the single source of truth: here it is only "some JSON" until
// validatePolicyLayer has looked at it.
import type { Policy, Problem } from "@spindle/policy";
import { z } from "zod";
import { deliveryInput } from "@/modules/rollouts/types/rollout";

export const policyNameSchema = z.string().trim().min(1, "Give the policy a name.").max(100, "Keep the name under 100 characters.");

const commentSchema = z.string().trim().max(500, "Keep the comment under 500 characters.").default("");
const descriptionSchema = z.string().trim().max(2000, "Keep the description under 2000 characters.");

export const createPolicyInput = z.object({
  name: policyNameSchema,
  description: descriptionSchema.default(""),
  document: z.unknown().default({ schemaVersion: 1 }),
  comment: commentSchema,
});
export type CreatePolicyInput = z.input<typeof createPolicyInput>;

export const saveVersionInput = z.object({
  document: z.unknown(),
  comment: commentSchema,
  /** The version the editor started from; a save on top of a newer one is refused (409). */
  basedOnVersion: z.number().int().min(1).optional(),
  /** How the version goes out to the servers it reaches (docs/policy.md, "Rollouts"). */
  delivery: deliveryInput.optional(),
});
export type SaveVersionInput = z.input<typeof saveVersionInput>;

export const updatePolicyInput = z.object({
  description: descriptionSchema.optional(),
  archived: z.boolean().optional(),
});
export type UpdatePolicyInput = z.input<typeof updatePolicyInput>;

/** Tags group servers for policy: lowercase letters, digits and . _ : - (the SQL checks the same). */
export const tagSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._:-]{0,62}$/, "A tag is 1–63 lowercase letters, digits, '.', '_', ':' or '-', starting with a letter or digit.");

export const serverTagsInput = z.object({
  tags: z
    .array(tagSchema)
    .max(32, "A server can carry at most 32 tags.")
    .transform((tags) => [...new Set(tags)].sort()),
});
export type ServerTagsInput = z.input<typeof serverTagsInput>;

export const assignmentScopes = ["organization", "tag", "server"] as const;
export type AssignmentScope = (typeof assignmentScopes)[number];

export const createAssignmentInput = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("organization"), policyId: z.string(), delivery: deliveryInput.optional() }),
  z.object({ scope: z.literal("tag"), policyId: z.string(), tag: tagSchema, delivery: deliveryInput.optional() }),
  z.object({ scope: z.literal("server"), policyId: z.string(), serverId: z.string(), delivery: deliveryInput.optional() }),
]);

export const removeAssignmentInput = z.object({ delivery: deliveryInput.optional() });
export type RemoveAssignmentInput = z.input<typeof removeAssignmentInput>;
export type CreateAssignmentInput = z.input<typeof createAssignmentInput>;

export interface Author {
  id: string;
  name: string;
}

export interface PolicyVersionSummary {
  id: string;
  version: number;
  /** The layer as saved: only the fields this policy sets. */
  document: Record<string, unknown>;
  comment: string;
  createdAt: string;
  createdBy: Author | null;
}

export interface AssignmentSummary {
  id: string;
  policyId: string;
  policyName: string;
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
  serverHostname: string | null;
  createdAt: string;
}

export interface PolicySummary {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  archivedAt: string | null;
  latestVersion: Omit<PolicyVersionSummary, "document">;
  assignments: AssignmentSummary[];
}

export interface PolicyDetail extends Omit<PolicySummary, "latestVersion"> {
  versions: PolicyVersionSummary[];
}

/** Where one layer of a server's effective policy comes from. */
export interface LayerSource {
  scope: AssignmentScope;
  tag: string | null;
  policyId: string;
  policyName: string;
  version: number;
}

export interface EffectiveLayer {
  source: LayerSource;
  document: Record<string, unknown>;
}

/** One value of the effective policy and the layer that set it (null: the schema's default). */
export interface FieldSource {
  path: string;
  value: unknown;
  source: LayerSource | null;
}

export type EffectivePolicy =
  | { ok: true; layers: EffectiveLayer[]; fields: FieldSource[]; policy: Policy; hash: string }
  | { ok: false; layers: EffectiveLayer[]; fields: FieldSource[]; problems: Problem[] };

export type PolicyStatusState = "pending" | "applied" | "failed" | "invalid";

/** What the console says about a server's policy, from server_policy_status and the current hash. */
export interface PolicyStatusView {
  state: PolicyStatusState;
  /** The hash of the effective policy now (null when the layers do not make a valid policy). */
  desiredHash: string | null;
  appliedHash: string | null;
  appliedAt: string | null;
  reportedAt: string | null;
  /** The agent's message for a failure (also a past failure while a newer policy is pending). */
  message: string;
  /**
   * Set when the agent refused the policy because it is older than fields the policy includes
   * (lib/older-agent.ts): upgrading the agent is the fix, not editing the policy.
   */
  olderAgent: { agentVersion: string; fields: string[] } | null;
}

export interface ServerPolicyView {
  serverId: string;
  hostname: string;
  tags: string[];
  effective: EffectivePolicy;
  status: PolicyStatusView;
}
