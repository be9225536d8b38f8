"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/** The second step of a password sign-in: a code from the authenticator app, or a recovery code. */
export function TwoFactorForm({ invitationId }: { invitationId?: string }) {
  const router = useRouter();
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const code = String(form.get("code") ?? "").replace(/\s+/g, "");
    setPending(true);
    setError(null);
    const verified = recovery
      ? await authClient.twoFactor.verifyBackupCode({ code })
      : await authClient.twoFactor.verifyTotp({ code, trustDevice: form.get("trust") === "on" });
    if (verified.error) {
      setPending(false);
      if (verified.error.code === "INVALID_TWO_FACTOR_COOKIE")
        return setError("This sign-in has expired: sign in with your password again.");
      return setError(authErrorMessage(verified.error, "Could not check the code."));
    }
    if (invitationId) await authClient.organization.acceptInvitation({ invitationId });
    router.push("/servers");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="two-factor-form" aria-label="Two-factor code">
      {recovery ? (
        <Field
          label="Recovery code"
          id="code"
          autoComplete="one-time-code"
          required
          hint="One of the codes you saved when you turned on two-factor authentication; each works once."
        />
      ) : (
        <Field
          label="Authentication code"
          id="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          required
          autoFocus
          hint="The 6-digit code your authenticator app shows for Spindle."
        />
      )}
      {recovery ? null : (
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="trust" className="size-4" /> Trust this browser for 30 days
        </label>
      )}
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="two-factor-submit">
        {pending ? "Checking…" : "Continue"}
      </Button>
      <Button
        variant="link"
        onClick={() => {
          setRecovery(!recovery);
          setError(null);
        }}
        data-testid="toggle-recovery-code"
      >
        {recovery ? "Use a code from the authenticator app" : "Use a recovery code instead"}
      </Button>
    </form>
  );
}
