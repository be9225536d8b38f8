import Link from "next/link";
import type { ReactNode } from "react";
import { Logo } from "@/components/shell/logo";

/** Public reference pages: no session needed. */
export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b bg-card/90">
        <div className="mx-auto flex h-14 w-full max-w-6xl items-center gap-6 px-4 sm:px-6">
          <Logo />
          <Link href="/servers" className="ml-auto text-sm font-medium text-primary hover:underline">
            Open the console
          </Link>
        </div>
      </header>
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6">{children}</main>
    </div>
  );
}
