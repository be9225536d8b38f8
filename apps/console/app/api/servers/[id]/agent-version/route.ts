import { agentVersionPinSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { pinAgentVersion, unpinAgentVersion } from "@/modules/agent-upgrades/lib/pins";
import { getServerAgentVersion } from "@/modules/agent-upgrades/lib/server-agent";

const params = z.object({ id: z.string() });

/** The server's agent version, upgrade available, pin and upgrade attempts. */
export const GET = orgRoute({ params }, async ({ context, params }) => ({ server: await getServerAgentVersion(database(), context.orgId, params.id) }));

/** Pins the server to a version (offered to it at once when it runs another). */
export const PUT = orgRoute(
  { params, body: agentVersionPinSchema, permission: { agentUpgrade: ["pin"] } },
  async ({ context, params, body }) => pinAgentVersion(database(), context, params.id, body),
);

/** Removes the pin. */
export const DELETE = orgRoute(
  { params, permission: { agentUpgrade: ["pin"] } },
  async ({ context, params }) => ({ server: await unpinAgentVersion(database(), context, params.id) }),
);
