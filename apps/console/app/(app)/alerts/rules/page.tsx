import { Plus } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { RulesTable } from "@/modules/alerts/components/rules-table";
import { listRules } from "@/modules/alerts/lib/list-rules";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";

export const metadata: Metadata = { title: "Alert rules" };

export default async function AlertRulesPage() {
  const context = await pageContext();
  const [{ rules, defaultsSeeded }, targets] = await Promise.all([
    listRules(database(), context.orgId),
    listAlertTargets(database(), context.orgId),
  ]);
  const canEdit = can(context.role, { alertRule: ["update"] });
  return (
    <>
      <PageHeader
        title="Alert rules"
        description="Default rules every organisation gets (edit them or turn them off) and your own. Thresholds and durations are explained in docs/alerts.md."
        actions={
          can(context.role, { alertRule: ["create"] }) ? (
            <Link href="/alerts/rules/new" className={buttonVariants()} data-testid="create-rule">
              <Plus /> Create rule
            </Link>
          ) : null
        }
      />
      <AlertsTabs current="rules" />
      <RulesTable
        initialRules={rules}
        defaultsSeeded={defaultsSeeded}
        canEdit={canEdit}
        hostnames={Object.fromEntries(targets.servers.map((s) => [s.id, s.hostname]))}
      />
    </>
  );
}
