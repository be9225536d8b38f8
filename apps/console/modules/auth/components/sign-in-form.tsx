"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";

/**
 * Signs in with a password; a user with two-factor authentication continues on the code page.
 * Coming from an invitation link it accepts the invitation right after.
 */
export function SignInForm({ invitationId, email }: { invitationId?: string; email?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [ssoRequired, setSsoRequired] = useState(false);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const signIn = await authClient.signIn.email({
      email: String(form.get("email") ?? "").trim(),
      password: String(form.get("password") ?? ""),
      callbackURL: invitationId ? `/invite/${invitationId}` : "/servers",
    });
    if (signIn.error) {
      setPending(false);
      setSsoRequired(signIn.error.code === "SSO_REQUIRED");
      return setError(authErrorMessage(signIn.error, "Could not sign in."));
    }
    if ((signIn.data as { twoFactorRedirect?: boolean } | null)?.twoFactorRedirect) {
      return router.push(`/sign-in/two-factor${invitationId ? `?invitation=${encodeURIComponent(invitationId)}` : ""}`);
    }
    if (invitationId) {
      const accepted = await authClient.organization.acceptInvitation({ invitationId });
      if (accepted.error) {
        setPending(false);
        return setError(`Signed in, but the invitation could not be accepted: ${accepted.error.message}`);
      }
    }
    router.push("/servers");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="sign-in-form" aria-label="Sign in">
      <Field label="Email" id="email" type="email" autoComplete="email" required defaultValue={email} />
      <Field label="Password" id="password" type="password" autoComplete="current-password" required />
      <FormError message={error} />
      {ssoRequired ? (
        <Link href="/sign-in/sso" className="text-sm font-medium text-primary hover:underline">
          Sign in with single sign-on
        </Link>
      ) : null}
      <Button type="submit" disabled={pending} data-testid="sign-in-submit">
        {pending ? "Signing in…" : "Sign in"}
      </Button>
      <div className="flex flex-wrap justify-between gap-2 text-sm">
        <Link href="/forgot-password" className="text-primary hover:underline" data-testid="forgot-password">
          Forgot your password?
        </Link>
        <Link href="/sign-in/sso" className="text-primary hover:underline" data-testid="sign-in-sso">
          Sign in with single sign-on
        </Link>
      </div>
    </form>
  );
}
