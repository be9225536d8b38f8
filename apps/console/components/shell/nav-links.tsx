"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

const links = [
  { href: "/servers", label: "Servers" },
  { href: "/alerts", label: "Alerts" },
  { href: "/gains", label: "Gains" },
  { href: "/policies", label: "Policies" },
  { href: "/rollouts", label: "Rollouts" },
  { href: "/recommendations", label: "Recommendations" },
  { href: "/settings/members", label: "Members" },
  { href: "/settings/audit", label: "Audit log" },
];

export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex items-center gap-1">
      {links.map(({ href, label }) => {
        const active = pathname === href || pathname.startsWith(`${href}/`);
        return (
          <Link
            key={href}
            href={href}
            aria-current={active ? "page" : undefined}
            className={cn(
              "rounded-md px-3 py-1.5 text-sm font-medium transition-colors",
              active ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:text-foreground",
            )}
          >
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
