// POST /api/servers/bulk: one action on many servers, named either by id (the rows ticked on
// a page) or by the filters ("every server that matches"), with the count the user confirmed,
// so a fleet that changed between the confirmation and the action is refused, not acted on.
import { z } from "zod";
import { tagSchema } from "@/modules/policies/types/policy";
import { fleetFilterSchema } from "./fleet-query";
import { deliveryInput, type ChangeOutcome } from "@/modules/rollouts/types/rollout";

/** The most servers one bulk action touches: a larger fleet is changed in filtered slices. */
export const MAX_BULK_SERVERS = 10_000;

const targetShape = {
  serverIds: z
    .array(z.string())
    .min(1, "pick at least one server")
    .max(MAX_BULK_SERVERS, `at most ${MAX_BULK_SERVERS} servers at once`)
    .optional(),
  filter: fleetFilterSchema.optional(),
  expectedCount: z.number().int().min(1, "expectedCount is the number of matching servers the user confirmed").optional(),
};

/** Ids, or a filter with the count confirmed: one of the two, so a bad filter value gets its own message. */
export const bulkTargetSchema = z
  .strictObject(targetShape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field ${issue.keys.join(", ")}: target takes serverIds, or filter and expectedCount`
        : undefined,
  })
  .superRefine((target, context) => {
    const byIds = target.serverIds !== undefined;
    const byFilter = target.filter !== undefined || target.expectedCount !== undefined;
    if (byIds === byFilter)
      context.addIssue({ code: "custom", message: "target is { serverIds: [...] } or { filter: {...}, expectedCount: n }" });
    else if (byFilter && (target.filter === undefined || target.expectedCount === undefined)) {
      context.addIssue({
        code: "custom",
        path: [target.filter ? "expectedCount" : "filter"],
        message: "a filter target needs both filter and expectedCount (the number of matching servers the user confirmed)",
      });
    }
  })
  .transform((target) =>
    target.serverIds !== undefined ? { serverIds: target.serverIds } : { filter: target.filter!, expectedCount: target.expectedCount! },
  );
export type BulkTarget = z.infer<typeof bulkTargetSchema>;

const common = {
  target: bulkTargetSchema,
  /** true: say what the action would do and change nothing (the confirmation's figures). */
  preview: z.boolean().default(false),
};

export const bulkActionSchema = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: z.literal("tag"), tag: tagSchema, ...common }),
    z.strictObject({ action: z.literal("untag"), tag: tagSchema, ...common }),
    z.strictObject({
      action: z.literal("assign-policy"),
      policyId: z.string().min(1, "policyId names the policy to assign"),
      /** How it goes out (docs/policy.md, "Rollouts"): by default a rollout when it reaches several servers. */
      delivery: deliveryInput.optional(),
      ...common,
    }),
    z.strictObject({ action: z.literal("revoke"), ...common }),
  ],
  { error: () => "action is one of: tag, untag, assign-policy, revoke" },
);
export type BulkActionInput = z.input<typeof bulkActionSchema>;
export type BulkAction = z.infer<typeof bulkActionSchema>;

/** What a bulk action did (or, previewed, would do). */
export interface BulkResult {
  action: BulkAction["action"];
  preview: boolean;
  /** Servers the target named. */
  servers: number;
  /** Servers the action changes (changed, or would change). */
  changed: number;
  /** Servers already as asked (tagged already, revoked already, on that policy already). */
  unchanged: number;
  /** For assign-policy: servers whose own policy is replaced, with the policy they had. */
  replaced: { serverId: string; hostname: string; policy: string }[];
  /** Audit entries written share this id (null in a preview). */
  bulkId: string | null;
  /** For assign-policy: whether it went out at once or started a rollout (absent in a preview). */
  delivery?: ChangeOutcome;
}
