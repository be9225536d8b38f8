import { agentVersionPinSchema } from "@spindle/domain";
import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { pinAgentVersion, unpinAgentVersion } from "@/modules/agent-upgrades/lib/pins";
import { getServerAgentVersion } from "@/modules/agent-upgrades/lib/server-agent";
import { serverAgentVersionSchema } from "@/modules/agent-upgrades/types/api";

const params = z.object({ id: z.string() });

/** The server's agent version, upgrade available, pin and upgrade attempts. */
export const GET = orgRoute(
  {
    summary: "A server's agent version",
    description: "Upgrade available, what the agent said about upgrading itself, its pin and its upgrade attempts.",
    tag: "Agent upgrades",
    params,
    response: z.object({ server: serverAgentVersionSchema }),
  },
  async ({ context, params }) => ({ server: await getServerAgentVersion(database(), context.orgId, params.id) }),
);

/** Pins the server to a version (offered to it at once when it runs another). */
export const PUT = orgRoute(
  {
    summary: "Pin a server to an agent version",
    description: "Every rollout leaves it out; when it runs another version, that version is offered to it at once.",
    tag: "Agent upgrades",
    params,
    body: agentVersionPinSchema,
    permission: { agentUpgrade: ["pin"] },
    response: z.object({ server: serverAgentVersionSchema, note: z.string().nullable() }),
    errors: [409],
  },
  async ({ context, params, body }) => pinAgentVersion(database(), context, params.id, body),
);

/** Removes the pin. */
export const DELETE = orgRoute(
  {
    summary: "Remove a server's agent version pin",
    tag: "Agent upgrades",
    params,
    permission: { agentUpgrade: ["pin"] },
    response: z.object({ server: serverAgentVersionSchema }),
  },
  async ({ context, params }) => ({ server: await unpinAgentVersion(database(), context, params.id) }),
);
