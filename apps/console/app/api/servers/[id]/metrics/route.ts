import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";
import { serverMetricsSchema } from "@/modules/metrics/types/api";

export const GET = orgRoute(
  { summary: "A server's disk and memory series", description: "Columnar: `time` in unix seconds, one array per rate; null is a gap. 1 h reads raw samples, 24 h the 1-minute and 7 d the 1-hour aggregates.",
    tag: "Metrics", params: z.object({ id: z.string() }), query: chartWindowQuerySchema, response: serverMetricsSchema },
  async ({ context, params, query }) => queryServerMetrics(database(), context.orgId, params.id, resolveChartWindow(query)),
);
