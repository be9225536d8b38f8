import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryFleetGains } from "@/modules/gains/lib/query-gains";
import { fleetGainsSchema } from "@/modules/gains/types/api";
import { gainsRangeQuerySchema } from "@/modules/gains/types/range";

/** The organisation's gains per server and its fleet ledger over a range. */
export const GET = orgRoute(
  {
    summary: "Gains of the fleet",
    description:
      "What the acceleration features caused, per server and as a ledger (docs/gains.md); every figure states its basis or why it is not measured.",
    tag: "Gains",
    query: gainsRangeQuerySchema,
    response: fleetGainsSchema,
  },
  async ({ context, query }) => queryFleetGains(database(), context.orgId, query),
);
