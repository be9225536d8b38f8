import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";

/** One rollout: plan, slots, waves with their servers and guard readings, timeline. */
export const GET = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) => ({
  rollout: await getRollout(database(), context.orgId, params.id),
}));
