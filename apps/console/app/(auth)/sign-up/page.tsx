import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { SignUpForm } from "@/modules/auth/components/sign-up-form";
import { resolveOrgContext } from "@/modules/auth/lib/org-context";
import { LocalMailboxNotice } from "@/modules/mail/components/local-mailbox-notice";

export const metadata: Metadata = { title: "Create an account" };

export default async function SignUpPage() {
  if ((await resolveOrgContext(await headers())).kind === "ok") redirect("/servers");
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Create your Spindle account</CardTitle>
        <CardDescription>You become the owner of a new organisation and can invite your team afterwards.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <LocalMailboxNotice />
        <SignUpForm />
      </CardContent>
      <CardFooter className="text-sm text-muted-foreground">
        Already have an account?
        <Link href="/sign-in" className="font-medium text-primary hover:underline">
          Sign in
        </Link>
      </CardFooter>
    </Card>
  );
}
