"use client";
import { BellOff, Plus } from "lucide-react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { fetchJson } from "@/lib/fetch-json";
import { formatDateTime } from "@/lib/format";
import { describeScope } from "../lib/describe-rule";
import type { AlertSilenceSummary, SilenceStatus, SilenceTargets } from "../types/alerts";
import { SilenceForm } from "./silence-form";

const statusVariant: Record<SilenceStatus, "success" | "outline" | "secondary"> = {
  active: "success",
  upcoming: "outline",
  expired: "secondary",
  cancelled: "secondary",
};

/** Active and upcoming silences first, then those that ended in the last 30 days; create and cancel. */
export function SilencesView({
  initial,
  targets,
  canManage,
}: {
  initial: AlertSilenceSummary[];
  targets: SilenceTargets;
  canManage: boolean;
}) {
  const [silences, setSilences] = useState(initial);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const hostnames = new Map(targets.servers.map((s) => [s.id, s.hostname]));

  async function reload() {
    setSilences((await fetchJson<{ silences: AlertSilenceSummary[] }>("/api/alerts/silences", { cache: "no-store" })).silences);
  }

  async function cancel(silence: AlertSilenceSummary) {
    setError(null);
    try {
      await fetchJson(`/api/alerts/silences/${silence.id}/cancel`, { method: "POST" });
      await reload();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

  return (
    <div className="grid gap-4">
      {canManage && !creating ? (
        <div>
          <Button onClick={() => setCreating(true)} data-testid="create-silence">
            <Plus /> New silence
          </Button>
        </div>
      ) : null}
      {creating ? (
        <SilenceForm
          targets={targets}
          onSaved={async () => {
            setCreating(false);
            await reload();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      <FormError message={error} />
      {silences.length === 0 ? (
        <EmptyState
          icon={BellOff}
          title="No silences"
          data-testid="silences-empty"
          description="A silence keeps matching alerts from notifying between its start and end (a maintenance window); they still appear in the history, marked as silenced."
        />
      ) : (
        <div className="rounded-xl border bg-card shadow-sm">
          <Table data-testid="silences-table">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Status</TableHead>
                <TableHead>Rule</TableHead>
                <TableHead>Applies to</TableHead>
                <TableHead>From – to</TableHead>
                <TableHead>Why, and who</TableHead>
                <TableHead className="w-px" />
              </TableRow>
            </TableHeader>
            <TableBody>
              {silences.map((s) => (
                <TableRow key={s.id} data-testid="silence-row" data-status={s.status} data-silence-id={s.id}>
                  <TableCell>
                    <Badge variant={statusVariant[s.status]}>{s.status}</Badge>
                  </TableCell>
                  <TableCell className="text-sm">{s.ruleName ?? "every rule"}</TableCell>
                  <TableCell className="text-sm">{describeScope(s.scope, hostnames)}</TableCell>
                  <TableCell className="whitespace-nowrap text-sm">
                    {formatDateTime(s.startsAt)} – {formatDateTime(s.endsAt)}
                    {s.cancelledAt ? (
                      <div className="text-xs text-muted-foreground">
                        cancelled {formatDateTime(s.cancelledAt)}
                        {s.cancelledBy ? ` by ${s.cancelledBy}` : ""}
                      </div>
                    ) : null}
                  </TableCell>
                  <TableCell className="max-w-sm text-sm">
                    {s.comment}
                    <div className="text-xs text-muted-foreground">
                      set by {s.createdBy ?? "a removed user"} on {formatDateTime(s.createdAt)}
                    </div>
                  </TableCell>
                  <TableCell>
                    {canManage && (s.status === "active" || s.status === "upcoming") ? (
                      <Button variant="outline" size="sm" onClick={() => cancel(s)} data-testid="cancel-silence">
                        Cancel
                      </Button>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
    </div>
  );
}
