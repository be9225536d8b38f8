import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getServer } from "@/modules/fleet/lib/get-server";
import { removeServer } from "@/modules/fleet/lib/server-lifecycle";
import { serverSummarySchema } from "@/modules/fleet/types/api";

export const GET = orgRoute(
  { summary: "One server", tag: "Servers", params: z.object({ id: z.string() }), response: z.object({ server: serverSummarySchema }) },
  async ({ context, params }) => ({ server: await getServer(database(), context.orgId, params.id) }),
);

/** Removes the server and its agent (owner/admin). */
export const DELETE = orgRoute(
  {
    summary: "Remove a server",
    description: "The server, its agent and its telemetry.",
    tag: "Servers",
    params: z.object({ id: z.string() }),
    permission: { server: ["delete"] },
    response: z.object({ removed: z.string() }),
  },
  async ({ context, params }) => removeServer(database(), context, params.id),
);
