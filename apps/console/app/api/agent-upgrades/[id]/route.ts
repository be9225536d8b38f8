import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRollout } from "@/modules/agent-upgrades/lib/get-rollout";
import { rolloutDetailSchema } from "@/modules/agent-upgrades/types/api";

const params = z.object({ id: z.string() });

/** One upgrade: status, plan, each wave's servers and their state (the page polls this). */
export const GET = orgRoute(
  {
    summary: "One agent upgrade",
    description: "Status and reason, plan, and each wave's servers with their state and the agent's message.",
    tag: "Agent upgrades",
    params,
    response: z.object({ rollout: rolloutDetailSchema }),
  },
  async ({ context, params }) => ({ rollout: await getRollout(database(), context.orgId, params.id) }),
);
