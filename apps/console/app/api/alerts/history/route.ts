import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listAlertHistory } from "@/modules/alerts/lib/list-alert-history";
import { historyQuerySchema } from "@/modules/alerts/types/alerts";
import { alertHistorySchema } from "@/modules/alerts/types/api";

export const GET = orgRoute(
  {
    summary: "Alert history",
    description: "State changes, newest first, 100 per page; `after` = the last entry's id.",
    tag: "Alerts",
    query: historyQuerySchema,
    response: alertHistorySchema,
  },
  async ({ context, query }) => listAlertHistory(database(), context.orgId, query),
);
