import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { controlRollout } from "@/modules/rollouts/lib/control-rollout";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";

/** POST /api/rollouts/:id/pause | resume | rollback | abort: answers the rollout as it now stands. */
export const POST = orgRoute(
  { params: z.object({ id: z.string(), action: z.enum(["pause", "resume", "rollback", "abort"]) }), permission: { rollout: ["control"] } },
  async ({ context, params }) => {
    await controlRollout(database(), context, params.id, params.action);
    return { rollout: await getRollout(database(), context.orgId, params.id) };
  },
);
