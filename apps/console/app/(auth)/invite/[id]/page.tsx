import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { database, identityTables } from "@/lib/db";
import { AcceptInvitationButton } from "@/modules/auth/components/accept-invitation-button";
import { SignInForm } from "@/modules/auth/components/sign-in-form";
import { SignUpForm } from "@/modules/auth/components/sign-up-form";
import { auth } from "@/modules/auth/lib/auth";
import { findInvitation } from "@/modules/members/lib/find-invitation";

export const metadata: Metadata = { title: "Invitation" };

export default async function InvitePage({ params, searchParams }: PageProps<"/invite/[id]">) {
  const { id } = await params;
  const { mode, proof } = await searchParams;
  const invitation = await findInvitation(identityTables(database()), id);
  if (invitation.state === "closed") {
    return (
      <Card>
        <CardHeader>
          <CardTitle className="text-xl">Invitation unavailable</CardTitle>
          <CardDescription>{invitation.reason}</CardDescription>
        </CardHeader>
        <CardContent>
          <Link href="/sign-in" className="text-sm font-medium text-primary hover:underline">
            Go to sign in
          </Link>
        </CardContent>
      </Card>
    );
  }
  const session = await auth().api.getSession({ headers: await headers() });
  const sameUser = session?.user.email.toLowerCase() === invitation.email.toLowerCase();
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Join {invitation.organizationName}</CardTitle>
        <CardDescription>
          {invitation.inviterName} invited {invitation.email} to join as <span className="font-medium capitalize">{invitation.role}</span>.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {session && sameUser ? <AcceptInvitationButton invitationId={invitation.id} /> : null}
        {session && !sameUser ? (
          <p className="text-sm text-muted-foreground">
            You are signed in as {session.user.email}. Sign out, then open this link again to accept it as {invitation.email}.
          </p>
        ) : null}
        {!session && mode === "sign-in" ? (
          <>
            <SignInForm invitationId={invitation.id} email={invitation.email} />
            <Link href={`/invite/${invitation.id}`} className="text-sm text-primary hover:underline">
              New here? Create an account instead
            </Link>
          </>
        ) : null}
        {!session && mode !== "sign-in" ? (
          <>
            <SignUpForm invitation={{ id: invitation.id, email: invitation.email, proof: typeof proof === "string" ? proof : undefined }} />
            <Link href={`/invite/${invitation.id}?mode=sign-in`} className="text-sm text-primary hover:underline">
              Already have an account? Sign in to accept
            </Link>
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
