"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient } from "../lib/auth-client";

/** Signs in; coming from an invitation link it accepts the invitation right after. */
export function SignInForm({ invitationId, email }: { invitationId?: string; email?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const signIn = await authClient.signIn.email({
      email: String(form.get("email") ?? "").trim(),
      password: String(form.get("password") ?? ""),
    });
    if (signIn.error) {
      setPending(false);
      return setError(signIn.error.status === 401 ? "Wrong email or password." : (signIn.error.message ?? "Could not sign in."));
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
      <Button type="submit" disabled={pending} data-testid="sign-in-submit">
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
