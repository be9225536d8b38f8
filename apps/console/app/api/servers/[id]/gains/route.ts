import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryServerGains } from "@/modules/gains/lib/query-gains";
import { gainsRangeQuerySchema } from "@/modules/gains/types/range";

export const GET = orgRoute({ params: z.object({ id: z.string() }), query: gainsRangeQuerySchema }, async ({ context, params, query }) =>
  queryServerGains(database(), context.orgId, params.id, query),
);
