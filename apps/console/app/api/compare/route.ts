import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryComparison } from "@/modules/compare/lib/query-comparison";
import { comparisonSchema } from "@/modules/compare/types/api";
import { comparisonQuerySchema } from "@/modules/compare/types/comparison";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  { summary: "Compare servers", description: "One server-wide metric of 2 to 4 servers on one time axis (a description of each, not a comparison against a control).",
    tag: "Metrics", query: comparisonQuerySchema, response: comparisonSchema },
  async ({ context, query }) => queryComparison(database(), context.orgId, query.servers, query.metric, resolveChartWindow(query)),
);
