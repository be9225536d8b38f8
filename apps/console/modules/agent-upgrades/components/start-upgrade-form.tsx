"use client";
// Start an agent upgrade: the version (from the releases the gateways serve), which servers, and
// the waves. The console answers with the rollout, whose page follows it.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { sendJson } from "@/modules/policies/components/send-json";
import type { FleetServerVersion, ReleaseSummary, RolloutSummary } from "../types/agent-upgrades";

type ScopeKind = "organization" | "tag" | "servers";

export function StartUpgradeForm({
  releases,
  servers,
  disabledReason,
}: {
  releases: ReleaseSummary[];
  servers: FleetServerVersion[];
  disabledReason: string | null;
}) {
  const router = useRouter();
  const [version, setVersion] = useState(releases[0]?.version ?? "");
  const [scope, setScope] = useState<ScopeKind>("organization");
  const [tag, setTag] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [canary, setCanary] = useState("1");
  const [waves, setWaves] = useState("25, 100");
  const [soak, setSoak] = useState("10");
  const [error, setError] = useState<string | null>(disabledReason);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    const scopeBody =
      scope === "tag" ? { kind: "tag", tag } : scope === "servers" ? { kind: "servers", serverIds: chosen } : { kind: "organization" };
    const wavePercents = waves
      .split(",")
      .map((w) => Number(w.trim()))
      .filter((w) => !Number.isNaN(w));
    const result = await sendJson<{ rollout: RolloutSummary }>("/api/agent-upgrades", "POST", {
      targetVersion: version,
      scope: scopeBody,
      plan: { canary: Number(canary), wavePercents, soakMinutes: Number(soak) },
    });
    setBusy(false);
    if (!result.ok) {
      setError(result.problems.length > 0 ? result.problems.map((p) => `${p.path}: ${p.message}`).join("; ") : result.message);
      return;
    }
    router.push(`/upgrades/${result.data.rollout.id}`);
  }

  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="start-upgrade-form">
      <div className="grid gap-4 sm:grid-cols-3">
        <div className="grid gap-1.5">
          <Label htmlFor="upgrade-version">Version</Label>
          <Select id="upgrade-version" value={version} onChange={(e) => setVersion(e.target.value)} data-testid="upgrade-version">
            {releases.map((r) => (
              <option key={r.version} value={r.version}>
                {r.version}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="upgrade-scope">Servers</Label>
          <Select id="upgrade-scope" value={scope} onChange={(e) => setScope(e.target.value as ScopeKind)} data-testid="upgrade-scope">
            <option value="organization">every server</option>
            <option value="tag">servers with a tag</option>
            <option value="servers">servers I choose</option>
          </Select>
        </div>
        {scope === "tag" ? (
          <div className="grid gap-1.5">
            <Label htmlFor="upgrade-tag">Tag</Label>
            <Input id="upgrade-tag" value={tag} onChange={(e) => setTag(e.target.value)} placeholder="db" />
          </div>
        ) : null}
      </div>
      {scope === "servers" ? (
        <fieldset className="grid gap-1 sm:grid-cols-3" data-testid="upgrade-servers">
          <legend className="mb-1 text-sm font-medium">Servers</legend>
          {servers.map((s) => (
            <label key={s.serverId} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={chosen.includes(s.serverId)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, s.serverId] : chosen.filter((id) => id !== s.serverId))}
              />
              {s.hostname} <span className="text-muted-foreground">({s.agentVersion || "unknown"})</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-3">
        <div className="grid gap-1.5">
          <Label htmlFor="upgrade-canary">Canary servers</Label>
          <Input id="upgrade-canary" inputMode="numeric" value={canary} onChange={(e) => setCanary(e.target.value)} />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="upgrade-waves">Waves after the canary (% of servers, growing to 100)</Label>
          <Input id="upgrade-waves" value={waves} onChange={(e) => setWaves(e.target.value)} />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="upgrade-soak">Soak per wave (minutes)</Label>
          <Input id="upgrade-soak" inputMode="numeric" value={soak} onChange={(e) => setSoak(e.target.value)} data-testid="upgrade-soak" />
        </div>
      </div>
      <FormError message={error} />
      <div>
        <Button type="submit" disabled={busy || disabledReason !== null || version === ""} data-testid="start-upgrade">
          Start the upgrade
        </Button>
      </div>
      <p className="text-xs text-muted-foreground">
        The canary gets the version first. Each server downloads it from a gateway, checks the gateway&apos;s signature and its SHA-256, and
        swaps itself; a watchdog brings the previous agent back if the new one does not connect within its bound. A wave goes out only once
        the one before has installed, stayed connected for the soak time and passed the rollouts&apos; measured guards over it (at least 5
        minutes): p99 latency, and its servers against those not yet upgraded. A failure, a rollback or a regression pauses the upgrade; a
        guard short of data holds the wave.
      </p>
    </form>
  );
}
