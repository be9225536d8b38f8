import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryComparison } from "@/modules/compare/lib/query-comparison";
import { comparisonQuerySchema } from "@/modules/compare/types/comparison";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute({ query: comparisonQuerySchema }, async ({ context, query }) =>
  queryComparison(database(), context.orgId, query.servers, query.metric, resolveChartWindow(query)));
