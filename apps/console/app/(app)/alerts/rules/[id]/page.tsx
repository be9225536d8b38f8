import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { AlertsTabs } from "@/modules/alerts/components/alerts-tabs";
import { RuleEditor } from "@/modules/alerts/components/rule-editor";
import { getRule } from "@/modules/alerts/lib/list-rules";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";

export const metadata: Metadata = { title: "Alert rule" };

export default async function AlertRulePage({ params }: PageProps<"/alerts/rules/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const rule = await getRule(database(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  const { servers } = await listAlertTargets(database(), context.orgId);
  return (
    <>
      <PageHeader
        title={
          <span data-testid="rule-name">
            {rule.name}{" "}
            <Badge variant="outline" className="align-middle">
              {rule.defaultKey ? "default rule" : "custom rule"}
            </Badge>
          </span>
        }
        description={
          rule.defaultKey
            ? "A default rule: edit its threshold and durations, or turn it off. It is never seeded again over your changes."
            : undefined
        }
      />
      <AlertsTabs current="rules" />
      <RuleEditor rule={rule} servers={servers} canEdit={can(context.role, { alertRule: ["update"] })} />
    </>
  );
}
