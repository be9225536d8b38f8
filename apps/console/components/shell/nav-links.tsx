"use client";
import { Menu, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import { cn } from "@/lib/utils";

const links: { href: string; label: string; section?: string }[] = [
  { href: "/servers", label: "Servers" },
  { href: "/alerts", label: "Alerts" },
  { href: "/gains", label: "Gains" },
  { href: "/policies", label: "Policies" },
  { href: "/rollouts", label: "Rollouts" },
  { href: "/recommendations", label: "Recommendations" },
  { href: "/upgrades", label: "Upgrades" },
  { href: "/settings/members", label: "Settings", section: "/settings" },
];

/** A link is current on its own page and below it; "Settings" on every page under /settings. */
function isActive(pathname: string, root: string): boolean {
  return pathname === root || pathname.startsWith(`${root}/`);
}

/** The main navigation: a row of links on wide screens; a menu button below `lg`, where the row would not fit. */
export function NavLinks() {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  // A link followed closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the path changes, which is the point
  useEffect(() => setOpen(false), [pathname]);
  return (
    <>
      <nav aria-label="Main" className="hidden items-center gap-1 lg:flex" data-testid="main-nav">
        {links.map(({ href, label, section }) => (
          <Link
            key={href}
            href={href}
            aria-current={isActive(pathname, section ?? href) ? "page" : undefined}
            className={cn(
              "rounded-md px-3 py-1.5 text-sm font-medium transition-colors",
              isActive(pathname, section ?? href) ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:text-foreground",
            )}
          >
            {label}
          </Link>
        ))}
      </nav>
      <button
        type="button"
        className="inline-flex size-9 items-center justify-center rounded-md border bg-card lg:hidden"
        aria-expanded={open}
        aria-controls="mobile-nav"
        aria-label={open ? "Close the menu" : "Open the menu"}
        data-testid="nav-toggle"
        onClick={() => setOpen((value) => !value)}
      >
        {open ? <X className="size-4" aria-hidden /> : <Menu className="size-4" aria-hidden />}
      </button>
      {open ? (
        <nav
          id="mobile-nav"
          aria-label="Main"
          data-testid="mobile-nav"
          className="absolute inset-x-0 top-14 z-20 grid gap-1 border-b bg-card p-3 shadow-lg lg:hidden"
        >
          {links.map(({ href, label, section }) => (
            <Link
              key={href}
              href={href}
              aria-current={isActive(pathname, section ?? href) ? "page" : undefined}
              className={cn(
                "rounded-md px-3 py-2 text-sm font-medium",
                isActive(pathname, section ?? href) ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:text-foreground",
              )}
            >
              {label}
            </Link>
          ))}
        </nav>
      ) : null}
    </>
  );
}
