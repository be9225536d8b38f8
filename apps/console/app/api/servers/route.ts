import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { listServers } from "@/modules/fleet/lib/list-servers";
import { serverSummarySchema } from "@/modules/fleet/types/api";

export const GET = orgRoute(
  { summary: "List servers", description: "Every server of the organisation with its status (online: delivered within 30 s).", tag: "Servers",
    response: z.object({ servers: z.array(serverSummarySchema) }) },
  async ({ context }) => ({ servers: await listServers(database(), context.orgId) }),
);
