import { z } from "zod";
import { pool, prisma } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryServerGains } from "@/modules/gains/lib/query-gains";
import { gainsRangeQuerySchema } from "@/modules/gains/types/range";

export const GET = orgRoute({ params: z.object({ id: z.string() }), query: gainsRangeQuerySchema }, async ({ context, params, query }) =>
  queryServerGains({ prisma: prisma(), pool: pool() }, context.orgId, params.id, query),
);
