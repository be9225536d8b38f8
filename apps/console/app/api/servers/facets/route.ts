import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { listFleetFacets } from "@/modules/fleet/lib/fleet-facets";

export const GET = orgRoute({}, async ({ context }) => ({ facets: await listFleetFacets(database(), context.orgId) }));
