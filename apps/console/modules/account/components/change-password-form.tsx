"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "@/modules/auth/lib/auth-client";

/** Changes the password and signs out every other session. */
export function ChangePasswordForm() {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    const newPassword = String(form.get("new-password") ?? "");
    if (newPassword !== String(form.get("confirm-password") ?? "")) return setError("The two new passwords differ.");
    setPending(true);
    setError(null);
    setDone(false);
    const changed = await authClient.changePassword({
      currentPassword: String(form.get("current-password") ?? ""),
      newPassword,
      revokeOtherSessions: true,
    });
    setPending(false);
    if (changed.error) return setError(authErrorMessage(changed.error, "Could not change the password."));
    target.reset();
    setDone(true);
  }

  return (
    <form onSubmit={submit} className="grid max-w-sm gap-3" data-testid="change-password-form">
      <Field label="Current password" id="current-password" type="password" autoComplete="current-password" required />
      <Field label="New password" id="new-password" type="password" autoComplete="new-password" required minLength={8} />
      <Field label="Repeat the new password" id="confirm-password" type="password" autoComplete="new-password" required minLength={8} />
      <FormError message={error} />
      {done ? (
        <p className="text-sm text-emerald-700" data-testid="password-changed">
          Password changed; your other sessions were signed out.
        </p>
      ) : null}
      <div>
        <Button type="submit" disabled={pending}>
          {pending ? "Saving…" : "Change password"}
        </Button>
      </div>
    </form>
  );
}
