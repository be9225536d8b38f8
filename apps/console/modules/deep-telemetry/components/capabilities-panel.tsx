"use client";
import { CheckCircle2, XCircle } from "lucide-react";
import { formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import type { Capabilities } from "../types/deep-telemetry";

/** What the agent can measure on this host, and for what is missing, why and what to do. */
export function CapabilitiesPanel({ capabilities }: { capabilities: Capabilities }) {
  const now = useNow();
  return (
    <section
      className="rounded-xl border bg-card p-5 shadow-sm"
      data-testid="capabilities"
      data-reported={capabilities.reportedAt !== null}
    >
      <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-base font-semibold">Agent capabilities</h2>
        <span className="text-xs text-muted-foreground">
          {capabilities.reportedAt === null
            ? "not reported yet: the agent reports them with its telemetry"
            : `reported ${now === null ? "" : formatRelative(capabilities.reportedAt, now)}`}
        </span>
      </div>
      <ul className="grid gap-2 text-sm">
        {capabilities.items.map((item) => (
          <li
            key={item.name}
            className="flex items-start gap-2"
            data-testid="capability"
            data-capability={item.name}
            data-available={item.available}
          >
            {item.available ? (
              <CheckCircle2 className="mt-0.5 size-4 shrink-0 text-success" aria-label="works" />
            ) : (
              <XCircle className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-label="missing" />
            )}
            <span>
              <span className="font-medium">{item.label}</span>
              {item.available ? null : capabilities.reportedAt === null ? (
                <span className="text-muted-foreground">: unknown</span>
              ) : (
                <span className="text-muted-foreground">: missing. {item.whenMissing}</span>
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
