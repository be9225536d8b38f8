import type { Metadata } from "next";
import Link from "next/link";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ResetPasswordForm } from "@/modules/auth/components/reset-password-form";

export const metadata: Metadata = { title: "Choose a new password" };

/** better-auth checks the e-mailed link and sends the browser here with `token`, or with `error`. */
export default async function ResetPasswordPage({ searchParams }: PageProps<"/reset-password">) {
  const { token, error } = await searchParams;
  const usable = typeof token === "string" && token.length > 0 && !error;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Choose a new password</CardTitle>
        <CardDescription>{usable ? "Choose the new password for your Spindle account." : "This link cannot be used."}</CardDescription>
      </CardHeader>
      <CardContent>
        {usable ? (
          <ResetPasswordForm token={token} />
        ) : (
          <div className="grid gap-3 text-sm" data-testid="reset-link-invalid">
            <p>The link has expired or was used already: each reset link works once, for one hour.</p>
            <Link href="/forgot-password" className="font-medium text-primary hover:underline">
              Ask for a new link
            </Link>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
