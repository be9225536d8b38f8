import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { overrideGuard } from "@/modules/rollouts/lib/control-rollout";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";
import { overrideInput } from "@/modules/rollouts/types/rollout";

/** Lets a holding wave pass: { wave, reason }, audited. */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), body: overrideInput, permission: { rollout: ["override"] } },
  async ({ context, params, body }) => {
    await overrideGuard(database(), context, params.id, body);
    return { rollout: await getRollout(database(), context.orgId, params.id) };
  },
);
