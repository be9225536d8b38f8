"use client";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/** Sets a new password with the token from the e-mailed link; every session is signed out. */
export function ResetPasswordForm({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const newPassword = String(form.get("password") ?? "");
    if (newPassword !== String(form.get("confirm") ?? "")) return setError("The two passwords differ.");
    setPending(true);
    setError(null);
    const reset = await authClient.resetPassword({ newPassword, token });
    setPending(false);
    if (reset.error) return setError(authErrorMessage(reset.error, "Could not set the new password."));
    setDone(true);
  }

  if (done) {
    return (
      <div className="grid gap-3 text-sm" data-testid="password-reset-done">
        <p>Your password was changed, and every session was signed out.</p>
        <Link href="/sign-in" className="font-medium text-primary hover:underline">
          Sign in with the new password
        </Link>
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="reset-password-form" aria-label="Choose a new password">
      <Field
        label="New password"
        id="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
      />
      <Field label="Repeat the new password" id="confirm" type="password" autoComplete="new-password" required minLength={8} />
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="reset-password-submit">
        {pending ? "Saving…" : "Set the new password"}
      </Button>
    </form>
  );
}
