import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { revokeServer } from "@/modules/fleet/lib/server-lifecycle";
import { agentStateSchema } from "@/modules/fleet/types/api";

/** Revokes the server's agent credential (owner/admin). Revoking twice is harmless. */
export const POST = orgRoute(
  {
    summary: "Revoke a server's agent credential",
    description: "The agent stops delivering at once; revoking twice is harmless.",
    tag: "Servers",
    params: z.object({ id: z.string() }),
    permission: { server: ["revoke"] },
    response: z.object({ agent: agentStateSchema }),
  },
  async ({ context, params }) => ({ agent: await revokeServer(database(), context, params.id) }),
);
