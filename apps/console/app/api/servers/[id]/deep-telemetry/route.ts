import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryDeepTelemetry } from "@/modules/deep-telemetry/lib/query-deep-telemetry";
import { deepTelemetrySchema } from "@/modules/deep-telemetry/types/api";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  {
    summary: "A server's storage telemetry",
    description:
      "Latency percentiles, split I/O, page-cache hits, fragmentation, databases, and the agent's capabilities (docs/metrics.md), over a preset range or a custom window.",
    tag: "Metrics",
    params: z.object({ id: z.string() }),
    query: chartWindowQuerySchema,
    response: deepTelemetrySchema,
  },
  async ({ context, params, query }) => queryDeepTelemetry(database(), context.orgId, params.id, resolveChartWindow(query)),
);
