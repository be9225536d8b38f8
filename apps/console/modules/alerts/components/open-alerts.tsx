"use client";
import { BellOff, CheckCircle2, LineChart, UserCheck } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { usePolling } from "@/lib/use-polling";
import { chartLinkForAlert } from "../lib/chart-link";
import type { OpenAlert, SilenceTargets } from "../types/alerts";
import { AcknowledgeForm } from "./acknowledge-form";
import { AcknowledgedMark } from "./acknowledged-mark";
import { SeverityBadge, StateBadge } from "./alert-badges";
import { AlertValueText } from "./alert-value";
import { SilenceForm } from "./silence-form";

const alertKey = (a: OpenAlert) => `${a.ruleId}/${a.serverId}/${a.component}`;

/** What is wrong now, refreshed every 10 s; on the Alerts page for the fleet, on a server page for it. */
export function OpenAlerts({
  serverId,
  canSilence,
  canAcknowledge,
  targets,
}: {
  serverId?: string;
  canSilence: boolean;
  canAcknowledge: boolean;
  targets: SilenceTargets;
}) {
  const { data, error, loading, refresh } = usePolling<{ alerts: OpenAlert[] }>(`/api/alerts${serverId ? `?serverId=${serverId}` : ""}`);
  const [silencing, setSilencing] = useState<string | null>(null);
  const [acknowledging, setAcknowledging] = useState<string | null>(null);
  const now = useNow();

  if (loading && !data) return <Skeleton className="h-24 w-full" data-testid="open-alerts-loading" />;
  if (!data) return <FormError message={error ?? "The alerts could not be loaded."} />;
  if (data.alerts.length === 0) {
    return (
      <EmptyState
        icon={CheckCircle2}
        title="Nothing firing"
        description={
          serverId
            ? "No rule is pending, firing or without data on this server."
            : "No rule is pending, firing or without data. The worker evaluates every rule every 30 s."
        }
        data-testid="open-alerts-empty"
        className="py-8"
      />
    );
  }
  return (
    <div className="grid gap-3">
      {error ? <FormError message={`Refresh failed, showing the last answer: ${error}`} /> : null}
      <div className="rounded-xl border bg-card shadow-sm">
        <Table data-testid="open-alerts">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>State</TableHead>
              <TableHead>Rule</TableHead>
              {serverId ? <TableHead>Device</TableHead> : <TableHead>Server / device</TableHead>}
              <TableHead>Since</TableHead>
              <TableHead>Value when it changed</TableHead>
              <TableHead className="w-px" />
            </TableRow>
          </TableHeader>
          <TableBody>
            {data.alerts.map((alert) => (
              <AlertRows
                key={alertKey(alert)}
                alert={alert}
                showServer={!serverId}
                now={now}
                canSilence={canSilence}
                canAcknowledge={canAcknowledge}
                open={silencing === alertKey(alert) ? "silence" : acknowledging === alertKey(alert) ? "acknowledge" : null}
                onSilence={() => {
                  setAcknowledging(null);
                  setSilencing(alertKey(alert));
                }}
                onAcknowledge={() => {
                  setSilencing(null);
                  setAcknowledging(alertKey(alert));
                }}
                onDone={() => {
                  setSilencing(null);
                  setAcknowledging(null);
                }}
                targets={targets}
                refresh={refresh}
              />
            ))}
          </TableBody>
        </Table>
      </div>
    </div>
  );
}

function AlertRows({
  alert,
  showServer,
  now,
  canSilence,
  canAcknowledge,
  open,
  onSilence,
  onAcknowledge,
  onDone,
  targets,
  refresh,
}: {
  alert: OpenAlert;
  showServer: boolean;
  now: number | null;
  canSilence: boolean;
  canAcknowledge: boolean;
  open: "silence" | "acknowledge" | null;
  onSilence: () => void;
  onAcknowledge: () => void;
  onDone: () => void;
  targets: SilenceTargets;
  refresh: () => Promise<void>;
}) {
  return (
    <>
      <TableRow
        data-testid="open-alert"
        data-rule={alert.ruleName}
        data-state={alert.state}
        data-server-id={alert.serverId}
        data-component={alert.component}
        data-silenced={alert.silence ? "true" : "false"}
        data-acknowledged={alert.acknowledgement ? "true" : "false"}
      >
        <TableCell className="align-top">
          <div className="flex flex-col items-start gap-1">
            <StateBadge state={alert.state} />
            <SeverityBadge severity={alert.severity} />
          </div>
        </TableCell>
        <TableCell className="max-w-md align-top">
          <Link href={`/alerts/rules/${alert.ruleId}`} className="font-medium hover:underline">
            {alert.ruleName}
          </Link>
          {alert.note ? (
            <p className="mt-1 text-xs text-muted-foreground" data-testid="alert-note">
              {alert.note}
            </p>
          ) : null}
          {alert.silence ? (
            <Badge variant="secondary" className="mt-1" data-testid="silenced-mark" title={alert.silence.comment}>
              <BellOff className="size-3" aria-hidden /> silenced until {formatDateTime(alert.silence.endsAt)}: {alert.silence.comment}
            </Badge>
          ) : null}
          {alert.acknowledgement ? <AcknowledgedMark ack={alert.acknowledgement} testId="acknowledged-mark" /> : null}
        </TableCell>
        <TableCell className="align-top text-sm">
          {showServer ? (
            <Link href={`/servers/${alert.serverId}`} className="font-medium hover:underline">
              {alert.hostname}
            </Link>
          ) : null}
          {alert.component ? (
            <div className="text-muted-foreground">{alert.component}</div>
          ) : showServer ? null : (
            <span className="text-muted-foreground">the server</span>
          )}
        </TableCell>
        <TableCell className="align-top text-sm" title={formatDateTime(alert.since)}>
          {now === null ? formatDateTime(alert.since) : formatRelative(alert.since, now)}
        </TableCell>
        <TableCell className="max-w-sm align-top text-sm">
          <AlertValueText value={alert.value} showBasis />
        </TableCell>
        <TableCell className="align-top">
          <div className="flex gap-1">
            <Link
              href={chartLinkForAlert(alert.serverId, alert.since)}
              className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-sm text-muted-foreground hover:text-foreground"
              data-testid="alert-chart-link"
            >
              <LineChart className="size-4" aria-hidden /> Chart
            </Link>
            {canAcknowledge && alert.alertId && !alert.acknowledgement ? (
              <Button variant="outline" size="sm" onClick={onAcknowledge} data-testid="acknowledge-alert">
                <UserCheck /> Acknowledge
              </Button>
            ) : null}
            {canSilence && !alert.silence ? (
              <Button variant="outline" size="sm" onClick={onSilence} data-testid="silence-alert">
                <BellOff /> Silence
              </Button>
            ) : null}
          </div>
        </TableCell>
      </TableRow>
      {open === "acknowledge" && alert.alertId ? (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={6}>
            <AcknowledgeForm
              alertId={alert.alertId}
              onSaved={async () => {
                onDone();
                await refresh();
              }}
              onCancel={onDone}
            />
          </TableCell>
        </TableRow>
      ) : null}
      {open === "silence" ? (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={6}>
            <SilenceForm
              targets={targets}
              draft={{ ruleId: alert.ruleId, scope: { scope: "server", serverId: alert.serverId } }}
              onSaved={async () => {
                onDone();
                await refresh();
              }}
              onCancel={onDone}
            />
          </TableCell>
        </TableRow>
      ) : null}
    </>
  );
}
