import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { controlRollout } from "@/modules/rollouts/lib/control-rollout";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";
import { rolloutDetailSchema } from "@/modules/rollouts/types/api";

/** POST /api/rollouts/:id/pause | resume | rollback | abort: answers the rollout as it now stands. */
export const POST = orgRoute(
  {
    summary: "Pause, resume, roll back or abort a rollout",
    description:
      "pause stops before the next step; resume goes on; rollback restores what the released servers had and pauses; abort rolls back and ends the rollout, restoring the declared state. Each is audited. 409 when the rollout's state does not allow it (a finished rollout, resume of one not paused).",
    tag: "Rollouts",
    params: z.object({ id: z.string(), action: z.enum(["pause", "resume", "rollback", "abort"]) }),
    permission: { rollout: ["control"] },
    response: z.object({ rollout: rolloutDetailSchema }),
    errors: [409],
  },
  async ({ context, params }) => {
    await controlRollout(database(), context, params.id, params.action);
    return { rollout: await getRollout(database(), context.orgId, params.id) };
  },
);
