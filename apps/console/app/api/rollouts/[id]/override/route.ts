import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { overrideGuard } from "@/modules/rollouts/lib/control-rollout";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";
import { rolloutDetailSchema } from "@/modules/rollouts/types/api";
import { overrideInput } from "@/modules/rollouts/types/rollout";

/** Lets a holding wave pass: { wave, reason }, audited. */
export const POST = orgRoute(
  {
    summary: "Override a holding wave's guards",
    description:
      'Lets a wave held for "not enough data" pass, with the reason, which goes in the audit log. 409 when the wave is not holding or the rollout is finished.',
    tag: "Rollouts",
    params: z.object({ id: z.string() }),
    body: overrideInput,
    permission: { rollout: ["override"] },
    response: z.object({ rollout: rolloutDetailSchema }),
    errors: [409],
  },
  async ({ context, params, body }) => {
    await overrideGuard(database(), context, params.id, body);
    return { rollout: await getRollout(database(), context.orgId, params.id) };
  },
);
