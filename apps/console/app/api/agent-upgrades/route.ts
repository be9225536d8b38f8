import { agentUpgradeRequestSchema } from "@spindle/domain";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getUpgradeOverview } from "@/modules/agent-upgrades/lib/overview";
import { startUpgrade } from "@/modules/agent-upgrades/lib/start-upgrade";

/** The releases served, the fleet's versions, upgrades available and the upgrades started. */
export const GET = orgRoute({}, async ({ context }) => getUpgradeOverview(database(), context.orgId));

/** Starts an upgrade: the canary is offered at once, the other waves follow (docs/install.md, "Upgrades"). */
export const POST = orgRoute(
  { body: agentUpgradeRequestSchema, permission: { agentUpgrade: ["start"] }, status: 201 },
  async ({ context, body }) => ({ rollout: await startUpgrade(database(), context, body) }),
);
