"use client";
import { BellPlus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { fetchJson } from "@/lib/fetch-json";
import { formatNumber } from "@/lib/format";
import { describeScope, formatDuration } from "../lib/describe-rule";
import type { AlertRuleSummary } from "../types/alerts";
import { SeverityBadge } from "./alert-badges";

/** Defaults and custom rules, each with its condition in words and an on/off switch for editors. */
export function RulesTable({
  initialRules,
  defaultsSeeded,
  hostnames,
  canEdit,
}: {
  initialRules: AlertRuleSummary[];
  defaultsSeeded: boolean;
  hostnames: Record<string, string>;
  canEdit: boolean;
}) {
  const [rules, setRules] = useState(initialRules);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const names = new Map(Object.entries(hostnames));

  async function toggle(rule: AlertRuleSummary) {
    setBusy(rule.id);
    setError(null);
    try {
      const { rule: saved } = await fetchJson<{ rule: AlertRuleSummary }>(`/api/alerts/rules/${rule.id}`, {
        method: "PATCH",
        body: JSON.stringify({ enabled: !rule.enabled }),
      });
      setRules((all) => all.map((r) => (r.id === saved.id ? saved : r)));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(null);
    }
  }

  if (rules.length === 0) {
    return (
      <EmptyState
        icon={BellPlus}
        title="No rules yet"
        data-testid="rules-empty"
        description={
          defaultsSeeded
            ? "Every rule of this organisation was deleted. Create a custom rule to be alerted again."
            : "The default rules arrive with the worker's next evaluation (every 30 s): reload this page in a moment. You can create a custom rule meanwhile."
        }
        action={
          canEdit ? (
            <Link href="/alerts/rules/new" className="text-sm font-medium text-primary hover:underline">
              Create a rule
            </Link>
          ) : undefined
        }
      />
    );
  }
  return (
    <div className="grid gap-3">
      <FormError message={error} />
      <div className="rounded-xl border bg-card shadow-sm">
        <Table data-testid="rules-table">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead className="w-px">On</TableHead>
              <TableHead>Rule</TableHead>
              <TableHead>Condition</TableHead>
              <TableHead>Applies to</TableHead>
              <TableHead>Open now</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {rules.map((rule) => (
              <TableRow
                key={rule.id}
                data-testid="rule-row"
                data-rule-id={rule.id}
                data-name={rule.name}
                data-kind={rule.defaultKey ? "default" : "custom"}
                data-enabled={rule.enabled}
              >
                <TableCell>
                  <input
                    type="checkbox"
                    checked={rule.enabled}
                    disabled={!canEdit || busy === rule.id}
                    onChange={() => toggle(rule)}
                    aria-label={`${rule.name} enabled`}
                    data-testid="rule-enabled"
                    className="size-4"
                  />
                </TableCell>
                <TableCell className="max-w-xs">
                  <div className="flex flex-wrap items-center gap-1.5">
                    <Link href={`/alerts/rules/${rule.id}`} className="font-medium hover:underline">
                      {rule.name}
                    </Link>
                    <SeverityBadge severity={rule.severity} />
                    <Badge variant="outline">{rule.defaultKey ? "default" : "custom"}</Badge>
                  </div>
                </TableCell>
                <TableCell className="text-sm">
                  {rule.signalLabel}: {rule.aggregation} {rule.comparison} {formatNumber(rule.threshold)} {rule.unit}
                  <div className="text-xs text-muted-foreground">
                    over {formatDuration(rule.windowSeconds)}, for {formatDuration(rule.forSeconds)}; resolves after{" "}
                    {formatDuration(rule.resolveSeconds)} clear
                  </div>
                </TableCell>
                <TableCell className="text-sm">{describeScope(rule.scope, names)}</TableCell>
                <TableCell className="text-sm tabular-nums">
                  {rule.openAlerts === 0 ? <span className="text-muted-foreground">none</span> : rule.openAlerts}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
    </div>
  );
}
