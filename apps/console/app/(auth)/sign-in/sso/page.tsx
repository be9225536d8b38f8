import type { Metadata } from "next";
import Link from "next/link";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { SsoSignInForm } from "@/modules/auth/components/sso-sign-in-form";
import { ssoErrorMessage } from "@/modules/sso/lib/sso-errors";

export const metadata: Metadata = { title: "Single sign-on" };

export default async function SsoSignInPage({ searchParams }: PageProps<"/sign-in/sso">) {
  const { organization, required, error, error_description: description } = await searchParams;
  const slug = typeof organization === "string" ? organization : undefined;
  const message = typeof error === "string" ? ssoErrorMessage(error, typeof description === "string" ? description : undefined) : undefined;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Sign in with single sign-on</CardTitle>
        <CardDescription>Use your company account, through your organisation&apos;s identity provider.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {required && slug ? (
          <Alert data-testid="sso-required">
            <AlertDescription>Your organisation requires single sign-on. Continue with your company account.</AlertDescription>
          </Alert>
        ) : null}
        <SsoSignInForm organizationSlug={slug} initialError={message} />
      </CardContent>
      <CardFooter className="text-sm">
        <Link href="/sign-in" className="text-primary hover:underline">
          Sign in with a password instead
        </Link>
      </CardFooter>
    </Card>
  );
}
