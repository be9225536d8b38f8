"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { sendJson } from "@/modules/policies/components/send-json";
import { parseLoads } from "../lib/parse-loads";
import type { OfferedProfile, RunSummary } from "../types/proof-run";

interface Props {
  serverId: string;
  profiles: OfferedProfile[];
  /** The directories the agent allows (agent.yaml proof_runs.paths); the form offers only these. */
  paths: string[];
  disabled: boolean;
  onStarted: () => void;
}

/** The request form. The agent refuses any path but the ones named here, and any run that would fill the disk past its floor. */
export function ProofRunForm({ serverId, profiles, paths, disabled, onStarted }: Props) {
  const [profile, setProfile] = useState(profiles[0]?.name ?? "");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  if (profiles.length === 0) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="no-profiles">
        The agent has not offered proof-run profiles yet; it does when it connects to the gateway. Reload once it is online.
      </p>
    );
  }

  if (paths.length === 0) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="no-paths">
        The agent allows no directories for proof runs. Its operator lists them under <code>proof_runs.paths</code> in agent.yaml (e.g. a
        directory on the volume to measure) and restarts the agent; the form then offers them.
      </p>
    );
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const loads = parseLoads(String(form.get("loads") ?? ""));
    if (typeof loads === "string") return setError(loads);
    const logPath = String(form.get("logPath") ?? "").trim();
    setPending(true);
    const result = await sendJson<{ run: RunSummary }>(`/api/servers/${serverId}/proof-runs`, "POST", {
      profile,
      dataPath: String(form.get("dataPath") ?? "").trim(),
      ...(logPath ? { logPath } : {}),
      sizeLimitMiB: Number(form.get("sizeLimitMiB")),
      timeLimitSeconds: Number(form.get("timeLimitSeconds")),
      stepSeconds: Number(form.get("stepSeconds")),
      latencyLimitMs: Number(form.get("latencyLimitMs")),
      targetHalfWidthPercent: Number(form.get("targetHalfWidthPercent")),
      loads,
    });
    setPending(false);
    if (!result.ok) {
      const details = (result as unknown as { problems: { path?: string; message: string }[] }).problems;
      return setError([result.message, ...details.map((p) => p.message)].join(" "));
    }
    setError(null);
    onStarted();
  }

  const chosen = profiles.find((p) => p.name === profile);
  return (
    <form onSubmit={submit} className="grid gap-3" data-testid="proof-run-form">
      <div className="grid gap-1.5">
        <Label htmlFor="profile">Profile</Label>
        <Select id="profile" value={profile} onChange={(event) => setProfile(event.target.value)}>
          {profiles.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </Select>
        {chosen ? (
          <p className="text-xs text-muted-foreground">
            {chosen.description}
            {chosen.source ? ` (${chosen.source})` : ""}
          </p>
        ) : null}
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="grid gap-1.5">
          <Label htmlFor="dataPath">Data directory</Label>
          <Select id="dataPath" name="dataPath" defaultValue={paths[0]}>
            {paths.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </Select>
          <p className="text-xs text-muted-foreground">
            One the agent allows (proof_runs.paths); the run writes only there and removes its files afterwards.
          </p>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="logPath">Log directory (optional)</Label>
          <Select id="logPath" name="logPath" defaultValue="">
            <option value="">same as data</option>
            {paths.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </Select>
          <p className="text-xs text-muted-foreground">For a profile&apos;s separate log file, e.g. on another device.</p>
        </div>
        <Field id="sizeLimitMiB" label="Size limit (MiB)" type="number" min={1} required defaultValue={256} />
        <Field
          id="timeLimitSeconds"
          label="Time limit (s)"
          type="number"
          min={10}
          required
          defaultValue={600}
          hint="The whole run: no block starts that would not finish in it."
        />
        <Field id="stepSeconds" label="Seconds per load step" type="number" min={1} required defaultValue={5} />
        <Field
          id="latencyLimitMs"
          label="Response-time limit (ms)"
          type="number"
          min={0.001}
          step="any"
          required
          defaultValue={100}
          hint="The saturation point is the first load step whose mean response time crosses it."
        />
        <Field
          id="targetHalfWidthPercent"
          label="Target interval (± %)"
          type="number"
          min={1}
          max={100}
          step="any"
          required
          defaultValue={5}
          hint="Blocks of off, on, on, off are added until every step's change is known within ± this, or the time limit comes (at least 2 blocks)."
        />
        <Field
          id="loads"
          label="Load steps (optional)"
          placeholder="1x1, 2x4, 4x8"
          hint="threads x outstanding I/Os; empty uses the profile's steps."
        />
      </div>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending || disabled} data-testid="start-run">
          Start A/B run
        </Button>
        {disabled ? <span className="text-xs text-muted-foreground">One run at a time: wait for the current run or cancel it.</span> : null}
      </div>
      <FormError message={error} />
    </form>
  );
}
