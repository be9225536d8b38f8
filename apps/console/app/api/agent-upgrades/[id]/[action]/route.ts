import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { controlUpgrade } from "@/modules/agent-upgrades/lib/control-upgrade";
import { rolloutSummarySchema } from "@/modules/agent-upgrades/types/api";

const params = z.object({ id: z.string(), action: z.enum(["pause", "resume", "cancel", "override"]) });
const body = z.strictObject({ retryFailed: z.boolean().optional(), reason: z.string().max(500).optional() });

/** Pause, resume (past the failures and a tripped guard, or retrying them), cancel, or override a wave's hold. */
export const POST = orgRoute(
  {
    summary: "Pause, resume or cancel an agent upgrade, or override a wave's hold",
    description:
      "`retryFailed` on resume offers the version again to the servers that failed or rolled back. `override` lets a wave whose guards lack data go on; `reason` (required) says why and is audited.",
    tag: "Agent upgrades",
    params,
    body,
    permission: { agentUpgrade: ["control"] },
    response: z.object({ rollout: rolloutSummarySchema }),
    errors: [409],
  },
  async ({ context, params, body }) => ({ rollout: await controlUpgrade(database(), context, params.id, params.action, body) }),
);
