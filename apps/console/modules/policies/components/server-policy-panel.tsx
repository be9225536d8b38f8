"use client";
import { AlertTriangle } from "lucide-react";
import Link from "next/link";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDateTime } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import type { PolicyStatusView, ServerPolicyView } from "../types/policy";
import { EffectivePolicyTable, layerLabel } from "./effective-policy-table";
import { PolicyStatusBadge } from "./policy-status-badge";
import { ServerTagsEditor } from "./server-tags-editor";

const shortHash = (hash: string | null) => (hash ? hash.slice(0, 12) : "—");

function StatusLine({ status }: { status: PolicyStatusView }) {
  switch (status.state) {
    case "applied":
      return (
        <>
          Policy <code title={status.appliedHash ?? ""}>{shortHash(status.appliedHash)}</code> applied{" "}
          {status.appliedAt ? formatDateTime(status.appliedAt) : ""}.
        </>
      );
    case "failed":
      return (
        <>
          The agent refused policy <code title={status.desiredHash ?? ""}>{shortHash(status.desiredHash)}</code> and keeps its previous one
          {status.reportedAt ? ` (reported ${formatDateTime(status.reportedAt)})` : ""}.
        </>
      );
    case "invalid":
      return <>The assigned layers do not merge into a valid policy, so nothing new is sent; the agent keeps its last applied policy.</>;
    case "pending":
      return (
        <>
          Waiting for the agent to apply <code title={status.desiredHash ?? ""}>{shortHash(status.desiredHash)}</code>
          {status.appliedHash ? (
            <>
              ; it still runs <code title={status.appliedHash}>{shortHash(status.appliedHash)}</code>
              {status.appliedAt ? ` (since ${formatDateTime(status.appliedAt)})` : ""}
            </>
          ) : null}
          .
        </>
      );
  }
}

/** Why an agent refused the policy when it is older than fields the policy includes, and the fix. */
function OlderAgentAlert({ olderAgent }: { olderAgent: NonNullable<PolicyStatusView["olderAgent"]> }) {
  const version = olderAgent.agentVersion ? `Agent ${olderAgent.agentVersion}` : "This agent";
  return (
    <Alert variant="destructive" data-testid="policy-older-agent">
      <AlertTriangle />
      <AlertTitle>The agent is older than this policy</AlertTitle>
      <AlertDescription>
        <p>
          {version} does not know{" "}
          {olderAgent.fields.map((field, i) => (
            <span key={field}>
              {i > 0 ? ", " : ""}
              <code>{field}</code>
            </span>
          ))}
          , which this version of Spindle includes in every policy (with its default where no layer sets it). The agent refused the whole
          policy and keeps running the last one it applied. Nothing in the policy needs fixing:{" "}
          <Link href="/upgrades" className="text-primary hover:underline">
            upgrade the agent
          </Link>
          , and the new version applies it.
        </p>
      </AlertDescription>
    </Alert>
  );
}

/** A server's policy: status, tags, the layers it inherits and the effective values. Refreshes every 10 s. */
export function ServerPolicyPanel({ initial, canEdit }: { initial: ServerPolicyView; canEdit: boolean }) {
  const { data, refresh } = usePolling<{ serverPolicy: ServerPolicyView }>(`/api/policies/servers/${initial.serverId}`, {
    initial: { serverPolicy: initial },
  });
  const view = data?.serverPolicy ?? initial;
  const { effective, status } = view;
  return (
    <Card data-testid="server-policy">
      <CardHeader>
        <div className="flex flex-wrap items-center gap-3">
          <CardTitle>Policy</CardTitle>
          <PolicyStatusBadge state={status.state} />
        </div>
        <CardDescription data-testid="policy-status-detail">
          <StatusLine status={status} />
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {status.olderAgent ? <OlderAgentAlert olderAgent={status.olderAgent} /> : null}
        {status.message ? (
          <Alert variant={status.state === "failed" ? "destructive" : "default"} data-testid="policy-failure">
            <AlertTriangle />
            <AlertTitle>{status.state === "failed" ? "The agent's message" : "The previous attempt failed"}</AlertTitle>
            <AlertDescription className="whitespace-pre-wrap font-mono text-xs">{status.message}</AlertDescription>
          </Alert>
        ) : null}
        {!effective.ok ? (
          <Alert variant="destructive" data-testid="effective-problems">
            <AlertTriangle />
            <AlertTitle>Fix the layers below</AlertTitle>
            <AlertDescription>
              <ul>
                {effective.problems.map((problem) => (
                  <li key={`${problem.path} ${problem.code}`}>
                    <code>{problem.path || "policy"}</code>: {problem.message}
                  </li>
                ))}
              </ul>
            </AlertDescription>
          </Alert>
        ) : null}
        <ServerTagsEditor serverId={view.serverId} tags={view.tags} canEdit={canEdit} onSaved={() => void refresh()} />
        <div className="grid gap-1.5">
          <h3 className="text-sm font-medium">Layers, lowest precedence first</h3>
          {effective.layers.length === 0 ? (
            <p className="text-sm text-muted-foreground" data-testid="no-layers">
              No policy applies: the agent runs the defaults.{" "}
              <Link href="/policies" className="text-primary hover:underline">
                Assign one
              </Link>
              .
            </p>
          ) : (
            <ol className="flex flex-wrap gap-2 text-sm" data-testid="policy-layers">
              {effective.layers.map((layer, index) => (
                <li key={`${layer.source.scope}-${layer.source.tag}-${layer.source.policyId}`} className="rounded-md border px-2 py-1">
                  <span className="text-muted-foreground">{index + 1}.</span>{" "}
                  <Link href={`/policies/${layer.source.policyId}`} className="hover:underline">
                    {layerLabel(layer.source)}
                  </Link>
                </li>
              ))}
            </ol>
          )}
        </div>
        <details open={effective.layers.length > 0}>
          <summary className="cursor-pointer text-sm font-medium">
            Effective policy
            {effective.ok ? (
              <span className="font-normal text-muted-foreground">
                {" "}
                · hash <code>{shortHash(effective.hash)}</code>
              </span>
            ) : null}
          </summary>
          <div className="mt-2">
            <EffectivePolicyTable fields={effective.fields} />
          </div>
        </details>
      </CardContent>
    </Card>
  );
}
