import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { database, identityTables } from "@/lib/db";
import { ChangePasswordForm } from "@/modules/account/components/change-password-form";
import { SessionsPanel } from "@/modules/account/components/sessions-panel";
import { TwoFactorPanel } from "@/modules/account/components/two-factor-panel";
import { auth } from "@/modules/auth/lib/auth";

export const metadata: Metadata = { title: "Account security" };

export default async function AccountSecurityPage({ searchParams }: PageProps<"/account/security">) {
  const session = await auth().api.getSession({ headers: await headers() });
  if (!session) redirect("/sign-in");
  const { required } = await searchParams;
  const hasPassword =
    (await identityTables(database()).account.count({ where: { userId: session.user.id, providerId: "credential" } })) > 0;
  const enabled = Boolean((session.user as { twoFactorEnabled?: boolean }).twoFactorEnabled);
  return (
    <>
      <PageHeader title="Account security" description="How you sign in to Spindle, and where you are signed in." />
      <div className="grid gap-6">
        {typeof required === "string" && !enabled ? (
          <Alert variant="destructive" data-testid="mfa-required">
            <AlertTitle>{required} requires two-factor authentication</AlertTitle>
            <AlertDescription>Turn it on below to open {required} again.</AlertDescription>
          </Alert>
        ) : null}
        <Card>
          <CardHeader>
            <CardTitle>Two-factor authentication</CardTitle>
            <CardDescription>After your password, Spindle asks for a code from an app on your phone.</CardDescription>
          </CardHeader>
          <CardContent>
            <TwoFactorPanel enabled={enabled} hasPassword={hasPassword} />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Sessions</CardTitle>
            <CardDescription>
              Every browser signed in to your account. Sign out any you do not recognise, then change your password.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <SessionsPanel currentSessionId={session.session.id} />
          </CardContent>
        </Card>
        {hasPassword ? (
          <Card>
            <CardHeader>
              <CardTitle>Password</CardTitle>
            </CardHeader>
            <CardContent>
              <ChangePasswordForm />
            </CardContent>
          </Card>
        ) : null}
      </div>
    </>
  );
}
