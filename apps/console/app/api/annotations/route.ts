import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryAnnotations } from "@/modules/annotations/lib/query-annotations";
import { annotationsQuerySchema } from "@/modules/annotations/types/annotation";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute({ query: annotationsQuerySchema }, async ({ context, query }) =>
  queryAnnotations(database(), context.orgId, query.servers, resolveChartWindow(query)));
