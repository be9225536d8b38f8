"use client";
// How a change goes out, chosen where the change is made (the policy editor's save, an
// assignment, a recommendation's Apply, the fleet's bulk assignment): as a rollout in waves,
// with its canary, percentages, guard window and thresholds, or at once, which owners and admins
// may choose after confirming it. docs/policy.md, "Rollouts".
import { defaultRolloutPlan, minimumGuardWindowMinutes, rolloutPlanSchema, type RolloutPlanInput } from "@spindle/domain";
import { useEffect, useMemo, useState } from "react";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import type { DeliveryInput } from "../types/rollout";

/** delivery undefined: at once, as any change the organisation's setting does not cover. */
export type DeliveryState = { ok: true; delivery?: DeliveryInput } | { ok: false; message: string };

type CanaryKind = "spread" | "tag" | "servers";

const defaults = defaultRolloutPlan();

function parsePercents(text: string): number[] | null {
  const parts = text
    .split(/[\s,→>]+/)
    .filter(Boolean)
    .map((p) => Number(p.replace("%", "")));
  return parts.length > 0 && parts.every((p) => Number.isInteger(p)) ? parts : null;
}

/**
 * `defaultMode` is what the organisation's setting makes of this change ("rollout" for a wide
 * change when rollouts are required); only then does "Apply now" need confirming. The chosen delivery, or why it is not valid yet, goes to
 * `onChange` on every edit.
 */
export function DeliveryChoice({
  defaultMode,
  reach,
  servers,
  onChange,
}: {
  defaultMode: "rollout" | "now";
  /** "tag db (12 servers)": what the change reaches, for the sentence above the choice. */
  reach: string;
  /** Servers a canary may be picked from. */
  servers: { id: string; hostname: string }[];
  onChange: (state: DeliveryState) => void;
}) {
  const [mode, setMode] = useState<"rollout" | "now">(defaultMode);
  const [confirmed, setConfirmed] = useState(false);
  const [canaryKind, setCanaryKind] = useState<CanaryKind>("spread");
  const [canaryCount, setCanaryCount] = useState("1");
  const [canaryTag, setCanaryTag] = useState("");
  const [canaryServers, setCanaryServers] = useState<string[]>([]);
  const [percents, setPercents] = useState(defaults.wavePercents.join(", "));
  const [windowMinutes, setWindowMinutes] = useState(String(defaults.guardWindowMinutes));
  const [guards, setGuards] = useState({
    offlineSeconds: String(defaults.guards.offlineSeconds),
    applyTimeoutMinutes: String(defaults.guards.applyTimeoutMinutes),
    backoffIncrease: String(defaults.guards.backoffIncrease),
    p99IncreasePercent: String(defaults.guards.p99IncreasePercent),
    relativeTolerancePercent: String(defaults.guards.comparative.relativeTolerancePercent),
    minimumControls: String(defaults.guards.comparative.minimumControls),
  });

  const state = useMemo<DeliveryState>(() => {
    if (mode === "now") {
      if (defaultMode === "now") return { ok: true };
      return confirmed
        ? { ok: true, delivery: { mode: "now", confirm: true } }
        : { ok: false, message: "Confirm that this change skips the canary and the guards." };
    }
    const wavePercents = parsePercents(percents);
    if (!wavePercents) return { ok: false, message: "Waves are whole percentages, such as 10, 50, 100." };
    const canary =
      canaryKind === "spread"
        ? { kind: "spread" as const, count: Number(canaryCount) }
        : canaryKind === "tag"
          ? { kind: "tag" as const, tag: canaryTag.trim().toLowerCase() }
          : { kind: "servers" as const, serverIds: canaryServers };
    const plan: RolloutPlanInput = {
      canary,
      wavePercents,
      guardWindowMinutes: Number(windowMinutes),
      guards: {
        offlineSeconds: Number(guards.offlineSeconds),
        applyTimeoutMinutes: Number(guards.applyTimeoutMinutes),
        backoffIncrease: Number(guards.backoffIncrease),
        p99IncreasePercent: Number(guards.p99IncreasePercent),
        comparative: { relativeTolerancePercent: Number(guards.relativeTolerancePercent), minimumControls: Number(guards.minimumControls) },
      },
    };
    const parsed = rolloutPlanSchema.safeParse(plan);
    if (!parsed.success) return { ok: false, message: parsed.error.issues.map((issue) => issue.message).join(" ") };
    return { ok: true, delivery: { mode: "rollout", plan } };
  }, [mode, defaultMode, confirmed, canaryKind, canaryCount, canaryTag, canaryServers, percents, windowMinutes, guards]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reports each new state; onChange is the parent's setter
  useEffect(() => onChange(state), [state]);

  const guardField = (key: keyof typeof guards, label: string) => (
    <div className="grid gap-1">
      <Label htmlFor={`guard-${key}`}>{label}</Label>
      <Input
        id={`guard-${key}`}
        inputMode="numeric"
        value={guards[key]}
        onChange={(e) => setGuards({ ...guards, [key]: e.target.value })}
      />
    </div>
  );

  return (
    <fieldset className="grid gap-3 rounded-lg border p-3" data-testid="delivery-choice" data-mode={mode}>
      <legend className="px-1 text-sm font-medium">How it goes out</legend>
      <p className="text-sm text-muted-foreground">This change reaches {reach}.</p>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="radio"
          name="delivery"
          checked={mode === "rollout"}
          onChange={() => setMode("rollout")}
          data-testid="delivery-rollout"
        />
        <span>
          <span className="font-medium">Roll out in waves</span>: a canary first, then percentages, each watched for a guard window and
          rolled back automatically on a regression.
        </span>
      </label>
      {mode === "rollout" ? (
        <div className="grid gap-3 pl-6" data-testid="rollout-plan">
          <div className="grid gap-2 sm:grid-cols-3">
            <div className="grid gap-1">
              <Label htmlFor="canary-kind">Canary</Label>
              <select
                id="canary-kind"
                className="h-9 rounded-md border bg-background px-2 text-sm"
                value={canaryKind}
                onChange={(e) => setCanaryKind(e.target.value as CanaryKind)}
              >
                <option value="spread">N servers across tags</option>
                <option value="tag">Servers with a tag</option>
                <option value="servers">Servers I choose</option>
              </select>
            </div>
            {canaryKind === "spread" ? (
              <div className="grid gap-1">
                <Label htmlFor="canary-count">Canary servers</Label>
                <Input id="canary-count" inputMode="numeric" value={canaryCount} onChange={(e) => setCanaryCount(e.target.value)} />
              </div>
            ) : canaryKind === "tag" ? (
              <div className="grid gap-1">
                <Label htmlFor="canary-tag">Canary tag</Label>
                <Input id="canary-tag" value={canaryTag} onChange={(e) => setCanaryTag(e.target.value)} placeholder="canary" />
              </div>
            ) : (
              <div className="grid gap-1 sm:col-span-2">
                <Label htmlFor="canary-servers">Canary servers</Label>
                <select
                  id="canary-servers"
                  multiple
                  className="min-h-24 rounded-md border bg-background px-2 text-sm"
                  value={canaryServers}
                  onChange={(e) => setCanaryServers([...e.target.selectedOptions].map((o) => o.value))}
                >
                  {servers.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.hostname}
                    </option>
                  ))}
                </select>
              </div>
            )}
          </div>
          <div className="grid gap-2 sm:grid-cols-2">
            <div className="grid gap-1">
              <Label htmlFor="wave-percents">Waves after the canary (% of servers)</Label>
              <Input id="wave-percents" value={percents} onChange={(e) => setPercents(e.target.value)} />
            </div>
            <div className="grid gap-1">
              <Label htmlFor="guard-window">Guard window (min, at least {minimumGuardWindowMinutes})</Label>
              <Input id="guard-window" inputMode="numeric" value={windowMinutes} onChange={(e) => setWindowMinutes(e.target.value)} />
            </div>
          </div>
          <details>
            <summary className="cursor-pointer text-sm">Guard thresholds</summary>
            <div className="mt-2 grid gap-2 sm:grid-cols-3">
              {guardField("p99IncreasePercent", "p99 latency may rise by (%)")}
              {guardField("backoffIncrease", "Extra read-cache backoffs allowed")}
              {guardField("offlineSeconds", "Agent offline after (s)")}
              {guardField("applyTimeoutMinutes", "Hold if not applied after (min)")}
              {guardField("relativeTolerancePercent", "Cost per I/O may worsen by (%)")}
              {guardField("minimumControls", "Servers not yet changed needed")}
            </div>
          </details>
        </div>
      ) : null}
      <label className="flex items-start gap-2 text-sm">
        <input type="radio" name="delivery" checked={mode === "now"} onChange={() => setMode("now")} data-testid="delivery-now" />
        <span>
          <span className="font-medium">Apply now</span> to every server it reaches, without a canary or guards
          {defaultMode === "rollout" ? " (owners and admins, recorded in the audit log)" : ""}.
        </span>
      </label>
      {mode === "now" && defaultMode === "rollout" ? (
        <label className="flex items-start gap-2 pl-6 text-sm text-destructive">
          <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} data-testid="confirm-apply-now" />
          <span>I understand every server gets this at once; it is recorded in the audit log.</span>
        </label>
      ) : null}
      {!state.ok ? (
        <p className="text-sm text-muted-foreground" data-testid="delivery-problem">
          {state.message}
        </p>
      ) : null}
    </fieldset>
  );
}
