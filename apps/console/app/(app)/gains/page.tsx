import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { pageContext } from "@/modules/auth/lib/page-context";
import { FleetGainsView } from "@/modules/gains/components/fleet-gains";

export const metadata: Metadata = { title: "Gains" };

export default async function GainsPage() {
  await pageContext();
  return (
    <>
      <PageHeader
        title="Gains"
        description="What the acceleration features won, per server and for the fleet: measured from the agents' eBPF counters and latency histograms, never assumed."
      />
      <FleetGainsView />
    </>
  );
}
