import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryComparison } from "@/modules/compare/lib/query-comparison";
import { comparisonQuerySchema } from "@/modules/compare/types/comparison";
import { comparisonSchema } from "@/modules/fleet/types/api-fleet";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  {
    summary: "One metric of 2 to 4 servers",
    description: "A server-wide metric folded from each server's devices, on one time axis, over a chart window.",
    tag: "Metrics",
    query: comparisonQuerySchema,
    response: comparisonSchema,
  },
  async ({ context, query }) => queryComparison(database(), context.orgId, query.servers, query.metric, resolveChartWindow(query)),
);
