import Link from "next/link";
import { cn } from "@/lib/utils";

const tabs = [
  { href: "/alerts", label: "Alerts", key: "alerts" },
  { href: "/alerts/rules", label: "Rules", key: "rules" },
  { href: "/alerts/silences", label: "Silences", key: "silences" },
  { href: "/alerts/channels", label: "Channels", key: "channels" },
] as const;

export function AlertsTabs({ current }: { current: (typeof tabs)[number]["key"] }) {
  return (
    <nav aria-label="Alerting" className="mb-6 inline-flex rounded-md border bg-card p-0.5 shadow-sm">
      {tabs.map((tab) => (
        <Link
          key={tab.key}
          href={tab.href}
          aria-current={tab.key === current ? "page" : undefined}
          data-testid={`alerts-tab-${tab.key}`}
          className={cn(
            "rounded px-3 py-1 text-sm font-medium",
            tab.key === current ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground",
          )}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
