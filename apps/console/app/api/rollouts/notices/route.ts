import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listRolloutNotices } from "@/modules/rollouts/lib/read-rollouts";
import { rolloutNoticeSchema } from "@/modules/rollouts/types/api";

/** Rollouts that completed or rolled back after event ?after= (newest first, at most 20). */
export const GET = orgRoute(
  {
    summary: "Rollout notices",
    description:
      "Rollouts that completed or rolled back, newest first (at most 20); with `after`, only those after that notice's eventId (what the console's notification polls).",
    tag: "Rollouts",
    query: z.object({ after: z.string().optional().meta({ description: "The eventId of the last notice seen" }) }),
    response: z.object({ notices: z.array(rolloutNoticeSchema) }),
  },
  async ({ context, query }) => ({ notices: await listRolloutNotices(database(), context.orgId, query.after ?? null) }),
);
