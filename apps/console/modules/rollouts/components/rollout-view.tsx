"use client";
// One rollout, live: its status and why, the controls, each wave with its servers and the
// guards' readings (basis and interval), the slots it changed and its timeline. Refreshed every
// five seconds; the worker moves it on by itself.
import { describeRolloutPlan } from "@spindle/domain";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { formatDateTime } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { sendJson } from "@/modules/policies/components/send-json";
import type { RolloutDetail } from "../types/rollout";
import { RolloutStatusBadge } from "./rollout-badges";
import { WaveCard } from "./wave-card";

const confirmations = {
  pause: null,
  resume: "Resume? Waves that were rolled back go out again from the first, each with a new guard window.",
  rollback: "Roll back every server this rollout changed to the policy it had before? The rollout pauses.",
  abort: "Abort? The change is undone in the policies too, and every server goes back to the policy it had before.",
} as const;

export function RolloutView({ initial, canControl, canOverride }: { initial: RolloutDetail; canControl: boolean; canOverride: boolean }) {
  const { data, refresh } = usePolling<{ rollout: RolloutDetail }>(`/api/rollouts/${initial.id}`, {
    initial: { rollout: initial },
    intervalMs: 5000,
  });
  const rollout = data?.rollout ?? initial;
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const active = rollout.status === "running" || rollout.status === "paused";

  async function act(action: keyof typeof confirmations) {
    const question = confirmations[action];
    if (question && !window.confirm(question)) return;
    setPending(true);
    setError(null);
    const result = await sendJson(`/api/rollouts/${rollout.id}/${action}`, "POST");
    setPending(false);
    if (!result.ok) setError(result.message);
    await refresh();
  }

  async function override(wave: number, reason: string): Promise<string | null> {
    const result = await sendJson(`/api/rollouts/${rollout.id}/override`, "POST", { wave, reason });
    await refresh();
    return result.ok ? null : result.message;
  }

  return (
    <div className="grid gap-6" data-testid="rollout" data-status={rollout.status}>
      <Card>
        <CardHeader>
          <CardTitle className="flex flex-wrap items-center gap-3">
            <span data-testid="rollout-title">{rollout.title}</span>
            <RolloutStatusBadge status={rollout.status} />
          </CardTitle>
          <CardDescription>
            Started {formatDateTime(rollout.createdAt)}
            {rollout.createdBy ? ` by ${rollout.createdBy}` : ""}. {rollout.applied} of {rollout.servers} server
            {rollout.servers === 1 ? "" : "s"} on the new policy. {describeRolloutPlan(rollout.plan)}.
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          {rollout.statusReason ? (
            <p
              className={rollout.status === "paused" ? "rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm" : "text-sm"}
              data-testid="rollout-reason"
            >
              {rollout.statusReason}
            </p>
          ) : null}
          {canControl && active ? (
            <div className="flex flex-wrap gap-2" data-testid="rollout-controls">
              {rollout.status === "running" ? (
                <Button variant="outline" disabled={pending} onClick={() => void act("pause")} data-testid="rollout-pause">
                  Pause
                </Button>
              ) : null}
              {rollout.status === "paused" ? (
                <Button disabled={pending} onClick={() => void act("resume")} data-testid="rollout-resume">
                  Resume
                </Button>
              ) : null}
              <Button variant="outline" disabled={pending} onClick={() => void act("rollback")} data-testid="rollout-rollback">
                Roll back
              </Button>
              <Button variant="destructive" disabled={pending} onClick={() => void act("abort")} data-testid="rollout-abort">
                Abort
              </Button>
            </div>
          ) : null}
          <FormError message={error} />
        </CardContent>
      </Card>

      <div className="grid gap-4" data-testid="rollout-waves">
        {rollout.waveDetails.map((wave) => (
          <WaveCard key={wave.wave} wave={wave} canOverride={canOverride && active} onOverride={(reason) => override(wave.wave, reason)} />
        ))}
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>What changed</CardTitle>
            <CardDescription>Servers not yet released keep the layer each slot had before.</CardDescription>
          </CardHeader>
          <CardContent>
            <ul className="grid gap-1 text-sm" data-testid="rollout-slots">
              {rollout.slots.map((slot, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of readings, never reordered
                <li key={index}>
                  {slot.scope === "organization"
                    ? "Organisation default"
                    : slot.scope === "tag"
                      ? `Tag ${slot.tag}`
                      : `Server ${slot.serverHostname}`}
                  : {slot.before ? `“${slot.before.policyName}” v${slot.before.version}` : "nothing"} →{" "}
                  {slot.afterPolicyName ? `“${slot.afterPolicyName}”` : "nothing"}
                </li>
              ))}
            </ul>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Timeline</CardTitle>
          </CardHeader>
          <CardContent>
            <ol className="grid gap-2 text-sm" data-testid="rollout-timeline">
              {[...rollout.timeline].reverse().map((event) => (
                <li key={event.id} className="grid gap-0.5 border-l-2 pl-3" data-testid="timeline-entry" data-kind={event.kind}>
                  <span className="text-xs text-muted-foreground">
                    {formatDateTime(event.at)}
                    {event.actor ? ` · ${event.actor}` : " · Spindle"}
                  </span>
                  <span>{event.message}</span>
                </li>
              ))}
            </ol>
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
