import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryFamilySeries } from "@/modules/families/lib/query-family-series";
import { familiesAnswerSchema } from "@/modules/families/types/api";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";

const tablesSchema = z
  .string()
  .regex(/^[a-z0-9_]+(,[a-z0-9_]+){0,7}$/, "tables is a comma-separated list of up to 8 family tables, e.g. write_opt,write_opt_trimmed")
  .transform((value) => [...new Set(value.split(","))]);

/** Several families of one server over a range, one series each (a family panel's data). */
export const GET = orgRoute(
  {
    summary: "A server's metric families over a range or a custom window",
    description:
      'The points of each named family (docs/metrics.md, "Families") in its aggregates\' columns: raw intervals for 1 h, 1-minute buckets for 24 h, hourly ones for 7 d. 404 for a table that is not a summed family.',
    tag: "Metrics",
    params: z.object({ id: z.string() }),
    query: chartWindowQuerySchema.and(z.object({ tables: tablesSchema })),
    response: familiesAnswerSchema,
  },
  async ({ context, params, query }) => {
    const window = resolveChartWindow(query);
    const series = [];
    for (const table of query.tables) series.push(await queryFamilySeries(database(), context.orgId, params.id, table, window));
    return { range: window.range, from: window.from.toISOString(), families: series };
  },
);
