import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { RuleEditor } from "@/modules/alerts/components/rule-editor";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";

export const metadata: Metadata = { title: "New alert rule" };

export default async function NewAlertRulePage() {
  const context = await pageContext();
  if (!can(context.role, { alertRule: ["create"] })) redirect("/alerts/rules");
  const { servers } = await listAlertTargets(database(), context.orgId);
  return (
    <>
      <PageHeader
        title="New alert rule"
        description="Pick a signal, a threshold and how long it must hold. The preview shows how often it would have fired over the last 7 days before you save."
      />
      <AlertsTabs current="rules" />
      <RuleEditor rule={null} servers={servers} canEdit />
    </>
  );
}
