import { agentUpgradeRequestSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getUpgradeOverview } from "@/modules/agent-upgrades/lib/overview";
import { startUpgrade } from "@/modules/agent-upgrades/lib/start-upgrade";
import { rolloutSummarySchema, upgradeOverviewSchema } from "@/modules/agent-upgrades/types/api";

/** The releases served, the fleet's versions, upgrades available and the upgrades started. */
export const GET = orgRoute(
  {
    summary: "Agent versions and upgrades",
    description:
      "The releases the gateway serves, the versions across the fleet, servers with an upgrade available, and the upgrades started.",
    tag: "Agent upgrades",
    response: upgradeOverviewSchema,
  },
  async ({ context }) => getUpgradeOverview(database(), context.orgId),
);

/** Starts an upgrade: the canary is offered at once, the other waves follow (docs/install.md, "Upgrades"). */
export const POST = orgRoute(
  {
    summary: "Start an agent upgrade",
    description: 'The canary is offered at once; the worker offers the other waves (docs/install.md, "Upgrades").',
    tag: "Agent upgrades",
    body: agentUpgradeRequestSchema,
    permission: { agentUpgrade: ["start"] },
    status: 201,
    response: z.object({ rollout: rolloutSummarySchema }),
    errors: [404, 409, 422],
  },
  async ({ context, body }) => ({ rollout: await startUpgrade(database(), context, body) }),
);
