import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { SignInForm } from "@/modules/auth/components/sign-in-form";
import { resolveOrgContext } from "@/modules/auth/lib/org-context";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage() {
  if ((await resolveOrgContext(await headers())).kind === "ok") redirect("/servers");
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Sign in</CardTitle>
        <CardDescription>Welcome back to Spindle.</CardDescription>
      </CardHeader>
      <CardContent>
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
