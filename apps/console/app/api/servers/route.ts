import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetPageSchema } from "@/modules/fleet/types/api";
import { fleetQuerySchema } from "@/modules/fleet/types/fleet-query";

export const GET = orgRoute(
  { summary: "List servers", description: "A page of the fleet: search, filters, sort and groups by tag in the query (docs/fleet.md); each server with its status (online: delivered within 30 s).",
    tag: "Servers", query: fleetQuerySchema, response: fleetPageSchema },
  async ({ context, query }) => queryFleet(database(), context.orgId, query),
);
