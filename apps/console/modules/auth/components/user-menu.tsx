"use client";
import { BookOpen, ChevronDown, LogOut, ShieldCheck } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { authClient } from "@/modules/auth/lib/auth-client";

/** The signed-in user with their role, and sign-out. A <details> menu: keyboard-accessible, no popover library. */
export function UserMenu({ name, email, role }: { name: string; email: string; role: string }) {
  const router = useRouter();
  const [signingOut, setSigningOut] = useState(false);
  async function signOut() {
    setSigningOut(true);
    await authClient.signOut();
    router.replace("/sign-in");
    router.refresh();
  }
  return (
    <details className="group relative">
      <summary
        data-testid="user-menu"
        className="flex cursor-pointer list-none items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-accent [&::-webkit-details-marker]:hidden"
      >
        <span className="flex size-7 items-center justify-center rounded-full bg-primary/10 text-xs font-semibold text-primary">
          {name.slice(0, 1).toUpperCase()}
        </span>
        <span className="hidden max-w-40 truncate sm:inline">{name}</span>
        <ChevronDown className="size-4 text-muted-foreground transition-transform group-open:rotate-180" aria-hidden />
      </summary>
      <div className="absolute right-0 z-20 mt-2 w-64 rounded-lg border bg-popover p-1 text-popover-foreground shadow-lg">
        <div className="px-3 py-2">
          <div className="truncate text-sm font-medium">{name}</div>
          <div className="truncate text-xs text-muted-foreground">{email}</div>
          <div className="mt-1 text-xs capitalize text-muted-foreground">Role: {role}</div>
        </div>
        <div className="my-1 h-px bg-border" />
        <Link
          href="/account/security"
          className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-accent"
          data-testid="account-security"
        >
          <ShieldCheck className="size-4" aria-hidden />
          Account security
        </Link>
        <Link href="/api-reference" className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-accent">
          <BookOpen className="size-4" aria-hidden />
          API reference
        </Link>
        <div className="my-1 h-px bg-border" />
        <button
          type="button"
          onClick={signOut}
          disabled={signingOut}
          className="flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-accent disabled:opacity-50"
        >
          <LogOut className="size-4" aria-hidden />
          {signingOut ? "Signing out…" : "Sign out"}
        </button>
      </div>
    </details>
  );
}
