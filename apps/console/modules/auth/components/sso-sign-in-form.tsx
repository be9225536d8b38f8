"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/**
 * Single sign-on: the work address (or the organisation that requires it) picks the
 * organisation's identity provider, and the browser goes there to sign in.
 */
export function SsoSignInForm({ organizationSlug, initialError }: { organizationSlug?: string; initialError?: string }) {
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    setPending(true);
    setError(null);
    const target = email ? { email } : { organizationSlug };
    const started = await authClient.signIn.sso({
      ...target,
      callbackURL: "/servers",
      newUserCallbackURL: "/servers",
      errorCallbackURL: "/sign-in/sso",
    });
    if (started.error) {
      setPending(false);
      return setError(
        started.error.status === 404
          ? "No organisation uses single sign-on for that address. Sign in with your password, or ask your organisation's owner."
          : authErrorMessage(started.error, "Could not start single sign-on."),
      );
    }
    const url = (started.data as { url?: string } | null)?.url;
    if (url) window.location.assign(url);
  }

  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="sso-form" aria-label="Single sign-on">
      <Field
        label="Work email"
        id="email"
        type="email"
        autoComplete="email"
        required={!organizationSlug}
        hint="We send you to your organisation's identity provider to sign in."
      />
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="sso-submit">
        {pending ? "Redirecting…" : "Continue with single sign-on"}
      </Button>
    </form>
  );
}
