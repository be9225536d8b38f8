import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { revokeServer } from "@/modules/fleet/lib/server-lifecycle";

/** Revokes the server's agent credential (owner/admin). Revoking twice is harmless. */
export const POST = orgRoute(
  { params: z.object({ id: z.string() }), permission: { server: ["revoke"] } },
  async ({ context, params }) => ({ agent: await revokeServer(database(), context, params.id) }),
);
