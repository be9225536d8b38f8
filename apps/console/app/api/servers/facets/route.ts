import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { listFleetFacets } from "@/modules/fleet/lib/fleet-facets";
import { fleetFacetsSchema } from "@/modules/fleet/types/api-fleet";

export const GET = orgRoute(
  {
    summary: "The fleet's filter values",
    description: "Tags, operating systems, kernels and agent versions of the whole fleet, each with its number of servers.",
    tag: "Servers",
    response: fleetFacetsSchema,
  },
  async ({ context }) => ({ facets: await listFleetFacets(database(), context.orgId) }),
);
