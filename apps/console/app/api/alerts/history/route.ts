import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listAlertHistory } from "@/modules/alerts/lib/list-alert-history";
import { historyQuerySchema } from "@/modules/alerts/types/alerts";

export const GET = orgRoute({ query: historyQuerySchema }, async ({ context, query }) => listAlertHistory(database(), context.orgId, query));
