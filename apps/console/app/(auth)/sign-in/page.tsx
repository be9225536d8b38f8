import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { SignInForm } from "@/modules/auth/components/sign-in-form";
import { resolveOrgContext } from "@/modules/auth/lib/org-context";

export const metadata: Metadata = { title: "Sign in" };

const linkErrors: Record<string, string> = {
  TOKEN_EXPIRED: "That confirmation link has expired. Sign in with your password and we will send a new one.",
  INVALID_TOKEN: "That confirmation link is not valid any more. Sign in with your password and we will send a new one.",
  USER_NOT_FOUND: "That confirmation link belongs to no account. Create the account again.",
};

export default async function SignInPage({ searchParams }: PageProps<"/sign-in">) {
  if ((await resolveOrgContext(await headers())).kind === "ok") redirect("/servers");
  const { error } = await searchParams;
  const linkError = typeof error === "string" ? (linkErrors[error] ?? `The link could not be used (${error}).`) : null;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Sign in</CardTitle>
        <CardDescription>Welcome back to Spindle.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {linkError ? (
          <Alert variant="destructive" data-testid="link-error">
            <AlertDescription>{linkError}</AlertDescription>
          </Alert>
        ) : null}
        <SignInForm />
      </CardContent>
      <CardFooter className="text-sm text-muted-foreground">
        New to Spindle?
        <Link href="/sign-up" className="font-medium text-primary hover:underline">
          Create an account
        </Link>
      </CardFooter>
    </Card>
  );
}
