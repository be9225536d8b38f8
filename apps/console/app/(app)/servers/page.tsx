import { Plus } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { FleetView } from "@/modules/fleet/components/fleet-view";
import { listFleetFacets } from "@/modules/fleet/lib/fleet-facets";
import { queryFleet } from "@/modules/fleet/lib/query-fleet";
import { ONLINE_WITHIN_SECONDS } from "@/modules/fleet/lib/server-status";
import { fleetQuerySchema, fleetQueryString } from "@/modules/fleet/types/fleet-query";

export const metadata: Metadata = { title: "Servers" };

export default async function ServersPage({ searchParams }: PageProps<"/servers">) {
  const context = await pageContext();
  const raw = Object.fromEntries(
    Object.entries(await searchParams).map(([key, value]) => [key, Array.isArray(value) ? value.at(-1) : value]),
  );
  // A link with a bad value still renders: the view shows what is wrong with it (parsed again there).
  const parsed = fleetQuerySchema.safeParse(raw);
  const query = parsed.success ? parsed.data : fleetQuerySchema.parse({});
  const [initial, facets] = await Promise.all([queryFleet(database(), context.orgId, query), listFleetFacets(database(), context.orgId)]);
  const canAdd = can(context.role, { enrollmentToken: ["create"] });
  return (
    <>
      <PageHeader
        title="Servers"
        description={`Online means the agent reported within the last ${ONLINE_WITHIN_SECONDS} seconds.`}
        actions={
          canAdd && initial.fleetSize > 0 ? (
            <Link href="/servers/add" className={buttonVariants()} data-testid="add-server">
              <Plus /> Add server
            </Link>
          ) : null
        }
      />
      <FleetView
        initial={initial}
        initialQuery={fleetQueryString(query)}
        initialFacets={facets}
        canAdd={canAdd}
        canAct={can(context.role, { policy: ["assign"] })}
        canRevoke={can(context.role, { server: ["revoke"] })}
      />
    </>
  );
}
