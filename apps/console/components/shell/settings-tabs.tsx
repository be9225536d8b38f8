"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

const tabs = [
  { href: "/settings/members", label: "Members" },
  { href: "/settings/security", label: "Security" },
  { href: "/settings/api-tokens", label: "API tokens" },
  { href: "/settings/rollouts", label: "Rollouts" },
  { href: "/settings/audit", label: "Audit log" },
];

/** The organisation's settings pages. */
export function SettingsTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Settings" className="mb-6 flex gap-1 border-b" data-testid="settings-tabs">
      {tabs.map(({ href, label }) => {
        const active = pathname === href;
        return (
          <Link
            key={href}
            href={href}
            aria-current={active ? "page" : undefined}
            data-testid={`settings-tab-${href.split("/").pop()}`}
            className={cn(
              "-mb-px border-b-2 px-3 py-2 text-sm font-medium",
              active ? "border-primary text-foreground" : "border-transparent text-muted-foreground hover:text-foreground",
            )}
          >
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
