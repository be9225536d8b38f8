import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryAnnotations } from "@/modules/annotations/lib/query-annotations";
import { annotationsSchema } from "@/modules/annotations/types/api";
import { annotationsQuerySchema } from "@/modules/annotations/types/annotation";
import { resolveChartWindow } from "@/modules/metrics/lib/chart-window";

export const GET = orgRoute(
  { summary: "What the charts mark", description: "Policies applied, refused and rolled back, alerts, proof runs and agent restarts of 1 to 4 servers in a chart window (docs/fleet.md).",
    tag: "Metrics", query: annotationsQuerySchema, response: annotationsSchema },
  async ({ context, query }) => queryAnnotations(database(), context.orgId, query.servers, resolveChartWindow(query)),
);
