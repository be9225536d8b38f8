import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryDeepTelemetry } from "@/modules/deep-telemetry/lib/query-deep-telemetry";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  { params: z.object({ id: z.string() }), query: chartWindowQuerySchema },
  async ({ context, params, query }) => queryDeepTelemetry(database(), context.orgId, params.id, resolveChartWindow(query)),
);
