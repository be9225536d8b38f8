import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";

/** A server's tags, effective policy (layers, where each value came from, hash) and status. */
export const GET = orgRoute({ params: z.object({ serverId: z.string() }) }, async ({ context, params }) => ({
  serverPolicy: await getServerPolicy(database(), context.orgId, params.serverId),
}));
