"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormError } from "@/components/ui/form-error";
import { sendJson } from "@/modules/policies/components/send-json";

export function RolloutSettingForm({ rolloutsRequired, canChange }: { rolloutsRequired: boolean; canChange: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  async function toggle(next: boolean) {
    if (!next && !window.confirm("Let wide changes reach every server at once by default? Each change can still be rolled out by choice."))
      return;
    setPending(true);
    const result = await sendJson("/api/settings/rollouts", "PUT", { rolloutsRequired: next });
    setPending(false);
    setError(result.ok ? null : result.message);
    router.refresh();
  }
  return (
    <div className="grid gap-2">
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={rolloutsRequired}
          disabled={!canChange || pending}
          onChange={(e) => void toggle(e.target.checked)}
          data-testid="rollouts-required"
        />
        Send organisation- and tag-wide changes through a rollout
      </label>
      {!canChange ? <p className="text-xs text-muted-foreground">Only owners change this setting.</p> : null}
      <FormError message={error} />
    </div>
  );
}
