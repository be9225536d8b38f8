import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { isUuid } from "@/lib/uuid";
import { listOpenAlerts } from "@/modules/alerts/lib/list-open-alerts";

/** What is pending, firing or without data now; `serverId` narrows to one server. */
export const GET = orgRoute(
  { query: z.object({ serverId: z.string().refine(isUuid, "serverId is a server id").optional() }).strict() },
  async ({ context, query }) => ({ alerts: await listOpenAlerts(database(), context.orgId, { serverId: query.serverId }) }),
);
