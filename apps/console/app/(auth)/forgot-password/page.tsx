import type { Metadata } from "next";
import Link from "next/link";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { ForgotPasswordForm } from "@/modules/auth/components/forgot-password-form";
import { LocalMailboxNotice } from "@/modules/mail/components/local-mailbox-notice";

export const metadata: Metadata = { title: "Forgot your password?" };
export const dynamic = "force-dynamic";

export default function ForgotPasswordPage() {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Forgot your password?</CardTitle>
        <CardDescription>Enter your e-mail address and we will send you a link to choose a new one.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <LocalMailboxNotice />
        <ForgotPasswordForm />
      </CardContent>
      <CardFooter className="text-sm">
        <Link href="/sign-in" className="text-primary hover:underline">
          Back to sign in
        </Link>
      </CardFooter>
    </Card>
  );
}
