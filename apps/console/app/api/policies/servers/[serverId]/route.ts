import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";
import { serverPolicySchema } from "@/modules/policies/types/api";

/** A server's tags, effective policy (layers, where each value came from, hash) and status. */
export const GET = orgRoute(
  {
    summary: "A server's effective policy and its status",
    description: "Its tags, the layers in force, where each value came from, the hash, and the agent's APPLIED / FAILED answer.",
    tag: "Policies",
    params: z.object({ serverId: z.string() }),
    response: z.object({ serverPolicy: serverPolicySchema }),
  },
  async ({ context, params }) => ({ serverPolicy: await getServerPolicy(database(), context.orgId, params.serverId) }),
);
