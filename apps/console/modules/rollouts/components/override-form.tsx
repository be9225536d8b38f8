"use client";
// Letting a held wave go on: an owner or admin says why, and the reason is audited. Policy rollout
// waves (wave-card.tsx) and agent upgrade waves (agent-upgrades/components/wave-guards.tsx) share it.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";

export function OverrideForm({
  id,
  label,
  action,
  testId,
  onOverride,
}: {
  id: string;
  label: string;
  action: string;
  testId: string;
  /** Resolves to the error to show, or null once the override is recorded. */
  onOverride: (reason: string) => Promise<string | null>;
}) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <form
        className="flex flex-col gap-2 sm:flex-row sm:items-end"
        onSubmit={async (event) => {
          event.preventDefault();
          setError(await onOverride(reason));
        }}
      >
        <div className="grid flex-1 gap-1">
          <Label htmlFor={id}>{label}</Label>
          <Input id={id} value={reason} onChange={(e) => setReason(e.target.value)} />
        </div>
        <Button type="submit" variant="outline" data-testid={testId}>
          {action}
        </Button>
      </form>
      <FormError message={error} />
    </>
  );
}
