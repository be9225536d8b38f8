import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryCacheCurves } from "@/modules/cache-curves/lib/query-cache-curves";
import { cacheCurvesQuerySchema } from "@/modules/cache-curves/types/cache-curves";

export const GET = orgRoute(
  { params: z.object({ id: z.string() }), query: cacheCurvesQuerySchema },
  async ({ context, params, query }) => queryCacheCurves(database(), context.orgId, params.id, query.end),
);
