"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/** Asks for a reset link. The answer is the same whether or not the address has an account. */
export function ForgotPasswordForm() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    setPending(true);
    setError(null);
    const requested = await authClient.requestPasswordReset({ email, redirectTo: "/reset-password" });
    setPending(false);
    if (requested.error) return setError(authErrorMessage(requested.error, "Could not ask for a reset link."));
    setSentTo(email);
  }

  if (sentTo) {
    return (
      <p className="text-sm" data-testid="reset-requested">
        If <span className="font-medium">{sentTo}</span> has a Spindle account, a link to choose a new password is on its way. It works
        once, for one hour.
      </p>
    );
  }
  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="forgot-password-form" aria-label="Reset password">
      <Field label="Email" id="email" type="email" autoComplete="email" required />
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="forgot-password-submit">
        {pending ? "Sending…" : "Send me a reset link"}
      </Button>
    </form>
  );
}
