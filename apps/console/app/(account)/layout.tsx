import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { Logo } from "@/components/shell/logo";
import { auth } from "@/modules/auth/lib/auth";

/**
 * The signed-in user's own settings. Outside the organisation shell on purpose: a member whose
 * organisation requires MFA is sent here to turn it on before the organisation opens to them.
 */
export default async function AccountLayout({ children }: { children: ReactNode }) {
  const session = await auth().api.getSession({ headers: await headers() });
  if (!session) redirect("/sign-in");
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b bg-card/90">
        <div className="mx-auto flex h-14 w-full max-w-4xl items-center gap-6 px-4 sm:px-6">
          <Logo />
          <span className="text-sm text-muted-foreground">{session.user.email}</span>
          <Link href="/servers" className="ml-auto text-sm font-medium text-primary hover:underline" data-testid="back-to-console">
            Back to the console
          </Link>
        </div>
      </header>
      <main className="mx-auto w-full max-w-4xl flex-1 px-4 py-8 sm:px-6">{children}</main>
    </div>
  );
}
