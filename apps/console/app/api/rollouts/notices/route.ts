import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { listRolloutNotices } from "@/modules/rollouts/lib/read-rollouts";

/** Rollouts that completed or rolled back after event ?after= (newest first, at most 20). */
export const GET = orgRoute({ query: z.object({ after: z.string().optional() }) }, async ({ context, query }) => ({
  notices: await listRolloutNotices(database(), context.orgId, query.after ?? null),
}));
