"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient } from "../lib/auth-client";
import { organisationSlug } from "../lib/organisation-slug";

/**
 * Creates the user and signs them in; then either creates their organisation (they become its
 * owner, and it becomes active) or, when they came from an invitation, accepts it. If the second
 * step fails the account exists already: the user lands on onboarding or the invitation page.
 */
export function SignUpForm({ invitation }: { invitation?: { id: string; email: string } }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const field = (name: string) => String(form.get(name) ?? "").trim();
    setPending(true);
    setError(null);
    const signUp = await authClient.signUp.email({
      name: field("name"),
      email: invitation?.email ?? field("email"),
      password: String(form.get("password") ?? ""),
    });
    if (signUp.error) {
      setPending(false);
      return setError(signUp.error.message ?? "Could not create the account.");
    }
    const joined = invitation
      ? await authClient.organization.acceptInvitation({ invitationId: invitation.id })
      : await authClient.organization.create({ name: field("organization"), slug: organisationSlug(field("organization")) });
    if (joined.error) {
      setPending(false);
      setError(`Your account was created, but ${invitation ? "joining" : "creating"} the organisation failed: ${joined.error.message}`);
      return router.push(invitation ? `/invite/${invitation.id}` : "/onboarding");
    }
    router.push("/servers");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="sign-up-form" aria-label="Sign up">
      <Field label="Your name" id="name" autoComplete="name" required maxLength={100} />
      {invitation ? (
        <Field label="Email" id="email" type="email" value={invitation.email} readOnly />
      ) : (
        <Field label="Email" id="email" type="email" autoComplete="email" required />
      )}
      <Field label="Password" id="password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." />
      {invitation ? null : (
        <Field label="Organisation name" id="organization" required maxLength={100} hint="Your company or team; you can invite others later." />
      )}
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="sign-up-submit">
        {pending ? "Creating your account…" : invitation ? "Create account and join" : "Create account"}
      </Button>
    </form>
  );
}
