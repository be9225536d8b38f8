import type { Metadata } from "next";
import Link from "next/link";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { TwoFactorForm } from "@/modules/auth/components/two-factor-form";

export const metadata: Metadata = { title: "Two-factor authentication" };

export default async function TwoFactorPage({ searchParams }: PageProps<"/sign-in/two-factor">) {
  const { invitation } = await searchParams;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-xl">Two-factor authentication</CardTitle>
        <CardDescription>Your password was right. Now enter the code from your authenticator app.</CardDescription>
      </CardHeader>
      <CardContent>
        <TwoFactorForm invitationId={typeof invitation === "string" ? invitation : undefined} />
      </CardContent>
      <CardFooter className="text-sm">
        <Link href="/sign-in" className="text-primary hover:underline">
          Start again
        </Link>
      </CardFooter>
    </Card>
  );
}
