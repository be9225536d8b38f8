import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { listRollouts } from "@/modules/rollouts/lib/read-rollouts";

/** The organisation's rollouts, running and paused first; ?active=1 for those only, ?policyId= for one policy's. */
export const GET = orgRoute(
  { query: z.object({ active: z.enum(["0", "1"]).optional(), policyId: z.string().optional() }) },
  async ({ context, query }) => ({ rollouts: await listRollouts(database(), context.orgId, { active: query.active === "1", policyId: query.policyId }) }),
);
