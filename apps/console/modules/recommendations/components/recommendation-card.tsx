"use client";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { formatDateTime } from "@/lib/format";
import type { RecommendationStatus, RecommendationView } from "../types/recommendation";
import { PredictionLines, RealisedLine } from "./prediction-lines";

const statusVariant: Record<RecommendationStatus, "default" | "success" | "secondary" | "outline"> = {
  open: "default",
  applied: "success",
  dismissed: "secondary",
  snoozed: "outline",
};

export type RecommendationAction = "apply" | "apply-rollout" | "dismiss" | "snooze" | "reopen";

export function RecommendationCard({
  recommendation: r,
  showServer,
  canAct,
  busy,
  onAction,
}: {
  recommendation: RecommendationView;
  showServer: boolean;
  canAct: boolean;
  busy: boolean;
  onAction: (action: RecommendationAction) => void;
}) {
  return (
    <article
      id={`recommendation-${r.id}`}
      className="grid gap-3 rounded-xl border bg-card p-5 shadow-sm scroll-mt-6"
      data-testid="recommendation"
      data-kind={r.kind}
      data-status={r.status}
      data-recommendation-id={r.id}
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div className="grid gap-1">
          <h3 className="font-semibold" data-testid="recommendation-title">
            {r.title}
          </h3>
          <p className="text-xs text-muted-foreground">
            {showServer ? (
              <>
                <Link className="underline" href={`/servers/${r.serverId}`}>
                  {r.hostname}
                </Link>{" "}
                ·{" "}
              </>
            ) : null}
            found {formatDateTime(r.firstSeenAt)}, last confirmed {formatDateTime(r.refreshedAt)}
          </p>
        </div>
        <Badge variant={statusVariant[r.status]}>
          {r.status === "snoozed" && r.snoozedUntil ? `snoozed until ${formatDateTime(r.snoozedUntil)}` : r.status}
        </Badge>
      </header>

      <section className="grid gap-1 text-sm" data-testid="recommendation-evidence">
        <p>
          <span className="font-medium">Why: </span>
          {r.evidence.metric} ({r.evidence.source}), {formatDateTime(r.evidence.window.from)} – {formatDateTime(r.evidence.window.to)}.{" "}
          <Link className="underline" href={r.evidenceHref} data-testid="recommendation-evidence-link">
            See the evidence
          </Link>
        </p>
        <ul className="grid gap-0.5 text-muted-foreground">
          {r.evidence.facts.map((fact) => (
            <li key={fact.label}>
              {fact.label}: {fact.value}
            </li>
          ))}
        </ul>
      </section>

      <PredictionLines prediction={r.prediction} confidence={r.confidence} />

      <p className="text-sm">
        <span className="font-medium">Change: </span>
        {r.change !== null ? (
          <code className="text-xs" data-testid="recommendation-change">
            {r.change}
          </code>
        ) : (
          <span data-testid="recommendation-steps">{r.steps}</span>
        )}
      </p>

      {r.applied ? (
        <div className="grid gap-1">
          <p className="text-sm" data-testid="recommendation-applied">
            Applied {formatDateTime(r.applied.at)}
            {r.statusChangedBy ? ` by ${r.statusChangedBy}` : ""}:{" "}
            {r.applied.policyId ? (
              <Link className="underline" href={`/policies/${r.applied.policyId}`} data-testid="recommendation-policy-link">
                {r.applied.policyName ?? "policy"} version {r.applied.version}
              </Link>
            ) : (
              "the policy was deleted since"
            )}
          </p>
          <RealisedLine realised={r.realised} appliedAt={r.applied.at} />
        </div>
      ) : r.status !== "open" && r.statusChangedBy ? (
        <p className="text-xs text-muted-foreground">
          {r.status} by {r.statusChangedBy}
          {r.statusChangedAt ? ` on ${formatDateTime(r.statusChangedAt)}` : ""}
        </p>
      ) : null}

      {canAct && r.status !== "applied" ? (
        <footer className="flex flex-wrap gap-2">
          {r.change !== null ? (
            <>
              <Button size="sm" disabled={busy} onClick={() => onAction("apply")} data-testid="recommendation-apply">
                Apply
              </Button>
              <Button
                size="sm"
                variant="outline"
                disabled={busy}
                onClick={() => onAction("apply-rollout")}
                data-testid="recommendation-apply-rollout"
                title="Apply as a one-server rollout: watched for a guard window against the servers not changed, rolled back on a regression"
              >
                Apply with guards
              </Button>
            </>
          ) : null}
          {r.status === "open" ? (
            <>
              <Button size="sm" variant="outline" disabled={busy} onClick={() => onAction("snooze")} data-testid="recommendation-snooze">
                Snooze 7 days
              </Button>
              <Button size="sm" variant="outline" disabled={busy} onClick={() => onAction("dismiss")} data-testid="recommendation-dismiss">
                Dismiss
              </Button>
            </>
          ) : (
            <Button size="sm" variant="outline" disabled={busy} onClick={() => onAction("reopen")} data-testid="recommendation-reopen">
              Reopen
            </Button>
          )}
        </footer>
      ) : null}
    </article>
  );
}
