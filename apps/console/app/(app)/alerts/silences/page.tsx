import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { SilencesView } from "@/modules/alerts/components/silences-view";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";
import { listSilences } from "@/modules/alerts/lib/silences";

export const metadata: Metadata = { title: "Silences" };

export default async function SilencesPage() {
  const context = await pageContext();
  const [silences, targets] = await Promise.all([listSilences(database(), context.orgId), listAlertTargets(database(), context.orgId)]);
  return (
    <>
      <PageHeader
        title="Silences and maintenance windows"
        description="Matching alerts still change state and are kept in the history, marked as silenced, but are not notified."
      />
      <AlertsTabs current="silences" />
      <SilencesView initial={silences} targets={targets} canManage={can(context.role, { alertSilence: ["create"] })} />
    </>
  );
}
