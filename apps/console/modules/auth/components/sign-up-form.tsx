"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { authClient, authErrorMessage } from "../lib/auth-client";
import { INVITATION_PROOF_HEADER } from "../lib/invitation-proof-header";
import { organisationSlug } from "../lib/organisation-slug";
import { CheckInbox } from "./check-inbox";

export interface SignUpInvitation {
  id: string;
  email: string;
  /** From the e-mailed link: signing up through it proves the address. */
  proof?: string;
}

/**
 * Creates the user. When the address is proven already (the e-mailed invitation link, or the
 * first account of an install without mail) it signs in at once and creates the organisation
 * or accepts the invitation; otherwise it says where the confirmation link went, and the link
 * brings the user back to finish (onboarding with the organisation name, or the invitation).
 */
export function SignUpForm({ invitation }: { invitation?: SignUpInvitation }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [sent, setSent] = useState<{ email: string; callbackURL: string } | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const field = (name: string) => String(form.get(name) ?? "").trim();
    const email = invitation?.email ?? field("email");
    const password = String(form.get("password") ?? "");
    const organisation = field("organization");
    const callbackURL = invitation ? `/invite/${invitation.id}` : `/onboarding?organisation=${encodeURIComponent(organisation)}`;
    setPending(true);
    setError(null);
    const signUp = await authClient.signUp.email(
      { name: field("name"), email, password, callbackURL },
      invitation?.proof ? { headers: { [INVITATION_PROOF_HEADER]: `${invitation.id}.${invitation.proof}` } } : undefined,
    );
    if (signUp.error) {
      setPending(false);
      return setError(authErrorMessage(signUp.error, "Could not create the account."));
    }
    if (!signUp.data?.user.emailVerified) {
      setPending(false);
      return setSent({ email, callbackURL });
    }
    const signIn = await authClient.signIn.email({ email, password });
    if (signIn.error) {
      setPending(false);
      return setError(`Your account was created, but signing in failed: ${authErrorMessage(signIn.error, "try signing in")}`);
    }
    const joined = invitation
      ? await authClient.organization.acceptInvitation({ invitationId: invitation.id })
      : await authClient.organization.create({ name: organisation, slug: organisationSlug(organisation) });
    if (joined.error) {
      setPending(false);
      setError(`Your account was created, but ${invitation ? "joining" : "creating"} the organisation failed: ${joined.error.message}`);
      return router.push(invitation ? `/invite/${invitation.id}` : "/onboarding");
    }
    router.push("/servers");
    router.refresh();
  }

  if (sent) return <CheckInbox email={sent.email} callbackURL={sent.callbackURL} />;
  return (
    <form onSubmit={submit} className="grid gap-4" data-testid="sign-up-form" aria-label="Sign up">
      <Field label="Your name" id="name" autoComplete="name" required maxLength={100} />
      {invitation ? (
        <Field label="Email" id="email" type="email" value={invitation.email} readOnly />
      ) : (
        <Field label="Email" id="email" type="email" autoComplete="email" required />
      )}
      <Field
        label="Password"
        id="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
      />
      {invitation ? null : (
        <Field
          label="Organisation name"
          id="organization"
          required
          maxLength={100}
          hint="Your company or team; you can invite others later."
        />
      )}
      <FormError message={error} />
      <Button type="submit" disabled={pending} data-testid="sign-up-submit">
        {pending ? "Creating your account…" : invitation ? "Create account and join" : "Create account"}
      </Button>
    </form>
  );
}
