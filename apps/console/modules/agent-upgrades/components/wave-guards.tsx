"use client";
// One upgrade wave's measured guards, read after its soak before the next wave is offered: the
// verdict and its reason, the windows compared, every guard's reading (the policy rollouts'
// GuardReadings), and for a wave held for want of data, an override that says why.
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { formatDateTime } from "@/lib/format";
import { GuardReadings } from "@/modules/rollouts/components/guard-readings";
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
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
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
        <form
          className="flex flex-col gap-2 sm:flex-row sm:items-end"
          onSubmit={async (event) => {
            event.preventDefault();
            setError(await onOverride(reason));
          }}
        >
          <div className="grid flex-1 gap-1">
            <Label htmlFor={`upgrade-override-${wave}`}>Why the next wave may go out without this data</Label>
            <Input id={`upgrade-override-${wave}`} value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <Button type="submit" variant="outline" data-testid="upgrade-wave-override">
            Override the hold
          </Button>
        </form>
      ) : null}
      <FormError message={error} />
      <GuardReadings readings={guards.readings} readingsAt={guards.readingsAt} />
    </div>
  );
}
