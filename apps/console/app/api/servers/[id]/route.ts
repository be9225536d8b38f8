import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getServer } from "@/modules/fleet/lib/get-server";
import { removeServer } from "@/modules/fleet/lib/server-lifecycle";

export const GET = orgRoute({ params: z.object({ id: z.string() }) }, async ({ context, params }) => ({
  server: await getServer(database(), context.orgId, params.id),
}));

/** Removes the server and its agent (owner/admin). */
export const DELETE = orgRoute(
  { params: z.object({ id: z.string() }), permission: { server: ["delete"] } },
  async ({ context, params }) => removeServer(database(), context, params.id),
);
