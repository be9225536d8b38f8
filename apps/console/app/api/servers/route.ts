import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { fleetQuerySchema } from "@/modules/fleet/types/fleet-query";
import { fleetPageSchema } from "@/modules/fleet/types/api-fleet";

export const GET = orgRoute(
  {
    summary: "Find servers",
    description:
      "The fleet, filtered, sorted and paged in the database (docs/fleet.md): search, status, tag, OS, kernel, agent version, missing capability, alerts, policy state; `group=tag` adds each tag's counts and figures.",
    tag: "Servers",
    query: fleetQuerySchema,
    response: fleetPageSchema,
  },
  async ({ context, query }) => queryFleet(database(), context.orgId, query),
);
