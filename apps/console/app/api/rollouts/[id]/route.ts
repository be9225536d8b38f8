import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";
import { rolloutDetailSchema } from "@/modules/rollouts/types/api";

/** One rollout: plan, slots, waves with their servers and guard readings, timeline. */
export const GET = orgRoute(
  {
    summary: "A rollout",
    description:
      "Its plan, what each slot had before, every wave with its servers and the guards' readings (basis and interval), and the timeline.",
    tag: "Rollouts",
    params: z.object({ id: z.string() }),
    response: z.object({ rollout: rolloutDetailSchema }),
  },
  async ({ context, params }) => ({ rollout: await getRollout(database(), context.orgId, params.id) }),
);
