import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryServerGains } from "@/modules/gains/lib/query-gains";
import { serverGainsSchema } from "@/modules/gains/types/api";
import { gainsRangeQuerySchema } from "@/modules/gains/types/range";

export const GET = orgRoute(
  {
    summary: "Gains of one server",
    description: "As the fleet's, plus reads per device and the read series.",
    tag: "Gains",
    params: z.object({ id: z.string() }),
    query: gainsRangeQuerySchema,
    response: serverGainsSchema,
  },
  async ({ context, params, query }) => queryServerGains(database(), context.orgId, params.id, query),
);
