import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryCacheCurves } from "@/modules/cache-curves/lib/query-cache-curves";
import { cacheCurvesSchema } from "@/modules/cache-curves/types/api";
import { cacheCurvesQuerySchema } from "@/modules/cache-curves/types/cache-curves";

export const GET = orgRoute(
  {
    summary: "Miss-ratio curves of a server",
    description:
      "The newest window's curves (or the window ending at `end`; 404 when none ends then), with the read-cache budget and spare memory (null = not measured).",
    tag: "Metrics",
    params: z.object({ id: z.string() }),
    query: cacheCurvesQuerySchema,
    response: cacheCurvesSchema,
  },
  async ({ context, params, query }) => queryCacheCurves(database(), context.orgId, params.id, query.end),
);
