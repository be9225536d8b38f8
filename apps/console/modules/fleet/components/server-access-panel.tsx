"use client";
// Owner/admin controls for a server's agent: revoke its credential, allow one re-enrolment for
// an hour (after a reinstall), or remove the server. Each asks for confirmation first and is
// recorded in the audit log by the API.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { fetchJson } from "@/lib/fetch-json";
import { formatDateTime } from "@/lib/format";
import type { AgentState } from "../lib/server-lifecycle";

interface Props {
  serverId: string;
  hostname: string;
  initial: AgentState;
}

export function ServerAccessPanel({ serverId, hostname, initial }: Props) {
  const router = useRouter();
  const [agent, setAgent] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function act(question: string, run: () => Promise<void>) {
    if (!window.confirm(question)) return;
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  const post = (action: string) => async () => {
    const answer = await fetchJson<{ agent: AgentState }>(`/api/servers/${serverId}/${action}`, { method: "POST" });
    setAgent(answer.agent);
  };

  return (
    <Card data-testid="server-access">
      <CardHeader>
        <CardTitle>Agent access</CardTitle>
      </CardHeader>
      <CardContent className="space-y-3 text-sm">
        <p data-testid="agent-access-state">
          {agent.revokedAt
            ? `Revoked ${formatDateTime(agent.revokedAt)}: the gateway refuses this agent until an admin allows re-enrolment.`
            : agent.credentialExpiresAt
              ? `Credential valid until ${formatDateTime(agent.credentialExpiresAt)}; the agent renews it before then.`
              : "No agent has enrolled for this server."}
          {agent.reenrollmentAllowedUntil
            ? ` Re-enrolment with an enrolment token is allowed until ${formatDateTime(agent.reenrollmentAllowedUntil)}.`
            : ""}
        </p>
        <div className="flex flex-wrap gap-2">
          <Button
            variant="destructive"
            disabled={busy || !!agent.revokedAt || !agent.credentialExpiresAt}
            data-testid="revoke-server"
            onClick={() =>
              act(
                `Revoke the agent of ${hostname}? It stops sending at once and stays refused until you allow re-enrolment.`,
                post("revoke"),
              )
            }
          >
            Revoke agent
          </Button>
          <Button
            variant="outline"
            disabled={busy || !agent.credentialExpiresAt}
            data-testid="allow-reenrolment"
            onClick={() =>
              act(`Allow ${hostname} to be enrolled again with an enrolment token during the next hour?`, post("allow-reenrolment"))
            }
          >
            Allow re-enrolment
          </Button>
          <Button
            variant="outline"
            disabled={busy}
            data-testid="remove-server"
            onClick={() =>
              act(`Remove ${hostname} and its agent? Its telemetry ages out with retention.`, async () => {
                await fetchJson(`/api/servers/${serverId}`, { method: "DELETE" });
                router.push("/servers");
              })
            }
          >
            Remove server
          </Button>
        </div>
        <FormError message={error} />
      </CardContent>
    </Card>
  );
}
