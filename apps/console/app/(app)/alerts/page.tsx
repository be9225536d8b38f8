import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertHistory } from "@/modules/alerts/components/alert-history";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { OpenAlerts } from "@/modules/alerts/components/open-alerts";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";

export const metadata: Metadata = { title: "Alerts" };

export default async function AlertsPage() {
  const context = await pageContext();
  const targets = await listAlertTargets(database(), context.orgId);
  return (
    <>
      <PageHeader
        title="Alerts"
        description="What the rules see now, and every state change they made. The worker evaluates every enabled rule every 30 s on the 1-minute aggregates."
      />
      <AlertsTabs current="alerts" />
      <section className="grid gap-3" aria-labelledby="open-alerts-title">
        <h2 id="open-alerts-title" className="text-lg font-semibold">
          Firing now
        </h2>
        <OpenAlerts
          canSilence={can(context.role, { alertSilence: ["create"] })}
          canAcknowledge={can(context.role, { alert: ["acknowledge"] })}
          targets={targets}
        />
      </section>
      <section className="mt-8 grid gap-3" aria-labelledby="history-title">
        <h2 id="history-title" className="text-lg font-semibold">
          History
        </h2>
        <AlertHistory targets={targets} />
      </section>
    </>
  );
}
