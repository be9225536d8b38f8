import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryFleetGains } from "@/modules/gains/lib/query-gains";
import { gainsRangeQuerySchema } from "@/modules/gains/types/range";

/** The organisation's gains per server and its fleet ledger over a range. */
export const GET = orgRoute({ query: gainsRangeQuerySchema }, async ({ context, query }) =>
  queryFleetGains(database(), context.orgId, query),
);
