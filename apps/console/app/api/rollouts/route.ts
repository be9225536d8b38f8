import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRollouts } from "@/modules/rollouts/lib/read-rollouts";
import { rolloutSummarySchema } from "@/modules/rollouts/types/api";

/** The organisation's rollouts, running and paused first; ?active=1 for those only, ?policyId= for one policy's. */
export const GET = orgRoute(
  {
    summary: "List rollouts",
    description: 'Running and paused first, then the finished ones, newest first (docs/policy.md "Rollouts").',
    tag: "Rollouts",
    query: z.object({
      active: z.enum(["0", "1"]).optional().meta({ description: "1: only running and paused rollouts" }),
      policyId: z.string().optional().meta({ description: "Only the rollouts of this policy" }),
    }),
    response: z.object({ rollouts: z.array(rolloutSummarySchema) }),
  },
  async ({ context, query }) => ({
    rollouts: await listRollouts(database(), context.orgId, { active: query.active === "1", policyId: query.policyId }),
  }),
);
