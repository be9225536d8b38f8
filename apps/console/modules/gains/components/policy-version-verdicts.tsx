"use client";
import { useEffect, useState } from "react";
import { fetchJson } from "@/lib/fetch-json";
import type { PolicyVersionVerdicts } from "../types/verdict";
import { VerdictView } from "./verdict-view";

/**
 * The before/after verdicts of one policy version, loaded when the user opens them: the version's
 * apply on each server where it is the latest change, with the windows and intervals used.
 */
export function PolicyVersionVerdictsView({ policyId, version }: { policyId: string; version: number }) {
  const [open, setOpen] = useState(false);
  const [data, setData] = useState<PolicyVersionVerdicts | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    fetchJson<PolicyVersionVerdicts>(`/api/policies/${policyId}/versions/${version}/verdict`, { cache: "no-store" })
      .then((next) => !cancelled && setData(next))
      .catch((failure: unknown) => !cancelled && setError(failure instanceof Error ? failure.message : String(failure)));
    return () => {
      cancelled = true;
    };
  }, [open, policyId, version]);
  return (
    <details className="w-full text-sm" onToggle={(event) => setOpen(event.currentTarget.open)} data-testid="version-verdicts">
      <summary className="cursor-pointer text-muted-foreground hover:text-foreground">Before/after verdict</summary>
      <div className="mt-2 grid gap-3 pl-2">
        {error ? (
          <p className="text-destructive" role="alert">
            Could not load the verdict: {error}
          </p>
        ) : null}
        {open && !data && !error ? <p className="text-muted-foreground">Loading…</p> : null}
        {data && data.servers.length === 0 ? (
          <p className="text-muted-foreground" data-testid="verdict-no-servers">
            This version is not in force on any server now, so there is no apply time to compare around.
          </p>
        ) : null}
        {data?.servers.map((verdict) => (
          <VerdictView key={verdict.serverId} verdict={verdict} showHost />
        ))}
      </div>
    </details>
  );
}
