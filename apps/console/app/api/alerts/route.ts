import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { isUuid } from "@/lib/uuid";
import { listOpenAlerts } from "@/modules/alerts/lib/list-open-alerts";
import { openAlertSchema } from "@/modules/alerts/types/api";

/** What is pending, firing or without data now; `serverId` narrows to one server. */
export const GET = orgRoute(
  {
    summary: "Open alerts",
    description: "Pending, firing and no-data subjects of enabled rules now.",
    tag: "Alerts",
    query: z.object({ serverId: z.string().refine(isUuid, "serverId is a server id").optional() }).strict(),
    response: z.object({ alerts: z.array(openAlertSchema) }),
  },
  async ({ context, query }) => ({ alerts: await listOpenAlerts(database(), context.orgId, { serverId: query.serverId }) }),
);
