import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetQuerySchema } from "@/modules/fleet/types/fleet-query";

export const GET = orgRoute({ query: fleetQuerySchema }, async ({ context, query }) => queryFleet(database(), context.orgId, query));
