// Tells every gateway that an agent's access ended, so it closes that agent's OpAMP WebSocket at
// once (apps/gateway/internal/opamp/revocation.go) instead of at its next message or when its
// cached credential check expires. NOTIFY is delivered at commit: a rolled-back revocation
// announces nothing. The gateway re-checks the database, so the payload decides nothing.
import type { inOrg } from "@/lib/db";

type Transaction = Parameters<Parameters<typeof inOrg>[2]>[0];

/** The channel every gateway LISTENs on; the gateway's AgentAccessRevokedChannel. */
export const AGENT_ACCESS_REVOKED_CHANNEL = "spindle_agent_access_revoked";

export async function announceAccessRevoked(tx: Transaction, agent: { id: string; serverId: string }): Promise<void> {
  const payload = JSON.stringify({ agentId: agent.id, serverId: agent.serverId });
  await tx.$executeRaw`SELECT pg_notify(${AGENT_ACCESS_REVOKED_CHANNEL}, ${payload})`;
}
