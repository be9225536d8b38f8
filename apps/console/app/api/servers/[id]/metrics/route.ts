import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { serverMetricsSchema } from "@/modules/metrics/types/api";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  {
    summary: "A server's disk and memory series",
    description:
      "Columnar: `time` in unix seconds, one array per rate; null is a gap. A preset `range` (1h, 24h, 7d) or a custom window `from`…`to` (1 minute to 400 days); raw samples up to 3 h, 1-minute buckets up to 2 days, 1-hour buckets beyond.",
    tag: "Metrics",
    params: z.object({ id: z.string() }),
    query: chartWindowQuerySchema,
    response: serverMetricsSchema,
  },
  async ({ context, params, query }) => queryServerMetrics(database(), context.orgId, params.id, resolveChartWindow(query)),
);
