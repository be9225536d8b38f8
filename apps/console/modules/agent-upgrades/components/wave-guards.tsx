"use client";
// One upgrade wave's measured guards, read after its soak before the next wave is offered: the
// verdict and its reason, the windows compared, every guard's reading (the policy rollouts'
// GuardReadings), and for a wave held for want of data, an override that says why.
import { Badge } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/format";
import { GuardReadings } from "@/modules/rollouts/components/guard-readings";
import { OverrideForm } from "@/modules/rollouts/components/override-form";
import type { UpgradeWaveGuards } from "../types/agent-upgrades";

const verdictText = { pass: "guards passed", hold: "holding: not enough data", trip: "a guard tripped" } as const;

export function WaveGuards({
  wave,
  guards,
  canOverride,
  onOverride,
}: {
  wave: number;
  guards: UpgradeWaveGuards;
  canOverride: boolean;
  onOverride: (reason: string) => Promise<string | null>;
}) {
  const overridden = guards.overriddenAt !== null;
  const variant = overridden ? "outline" : guards.verdict === "pass" ? "success" : guards.verdict === "trip" ? "destructive" : "warning";
  return (
    <div className="grid gap-3" data-testid="wave-guards" data-verdict={guards.verdict} data-overridden={overridden}>
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <Badge variant={variant} data-testid="wave-verdict">
          {verdictText[guards.verdict]}
        </Badge>
        {overridden ? (
          <span className="text-muted-foreground" data-testid="wave-overridden">
            gone on past it by {guards.overriddenBy} at {formatDateTime(guards.overriddenAt!)}
          </span>
        ) : null}
        <span className="text-xs text-muted-foreground">
          {formatDateTime(guards.after.start)}–{formatDateTime(guards.after.end)} on the new version, against{" "}
          {formatDateTime(guards.before.start)}–{formatDateTime(guards.before.end)} before the offer
        </span>
      </p>
      {guards.reason ? (
        <p className="text-sm" data-testid="wave-guard-reason">
          {guards.reason}
        </p>
      ) : null}
      {guards.verdict === "hold" && !overridden && canOverride ? (
        <OverrideForm
          id={`upgrade-override-${wave}`}
          label="Why the next wave may go out without this data"
          action="Override the hold"
          testId="upgrade-wave-override"
          onOverride={onOverride}
        />
      ) : null}
      <GuardReadings readings={guards.readings} readingsAt={guards.readingsAt} />
    </div>
  );
}
