import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryAnnotations } from "@/modules/annotations/lib/query-annotations";
import { annotationsQuerySchema } from "@/modules/annotations/types/annotation";
import { annotationsSchema } from "@/modules/fleet/types/api-fleet";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  {
    summary: "What the charts mark",
    description:
      "Policy applied or refused, alerts firing and resolved, proof runs, agent starts and upgrades of 1 to 4 servers (`servers`, comma-separated) in a chart window; the newest 500.",
    tag: "Metrics",
    query: annotationsQuerySchema,
    response: annotationsSchema,
  },
  async ({ context, query }) => queryAnnotations(database(), context.orgId, query.servers, resolveChartWindow(query)),
);
