import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryDeepTelemetry } from "@/modules/deep-telemetry/lib/query-deep-telemetry";
import { chartWindowQuerySchema, windowEnd } from "@/modules/metrics/types/metrics";

export const GET = orgRoute(
  { params: z.object({ id: z.string() }), query: chartWindowQuerySchema },
  async ({ context, params, query }) => queryDeepTelemetry(database(), context.orgId, params.id, query.range, windowEnd(query.to)),
);
