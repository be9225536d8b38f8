import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { controlUpgrade } from "@/modules/agent-upgrades/lib/control-upgrade";

const params = z.object({ id: z.string(), action: z.enum(["pause", "resume", "cancel"]) });
const body = z.strictObject({ retryFailed: z.boolean().optional() });

/** Pause, resume (past the failures, or retrying them) or cancel an upgrade. */
export const POST = orgRoute(
  { params, body, permission: { agentUpgrade: ["control"] } },
  async ({ context, params, body }) => ({ rollout: await controlUpgrade(database(), context, params.id, params.action, body) }),
);
