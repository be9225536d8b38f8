"use client";
import { BellRing } from "lucide-react";
import Link from "next/link";
import { usePolling } from "@/lib/use-polling";
import type { OpenAlert } from "../types/alerts";

/** Firing alerts per server, from the same answer as the Alerts page (one request per fleet refresh). */
export function useFiringCounts(): Map<string, number> {
  const { data } = usePolling<{ alerts: OpenAlert[] }>("/api/alerts");
  const counts = new Map<string, number>();
  for (const alert of data?.alerts ?? []) if (alert.state === "firing") counts.set(alert.serverId, (counts.get(alert.serverId) ?? 0) + 1);
  return counts;
}

export function FiringCount({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <Link href="/alerts" onClick={(event) => event.stopPropagation()} data-testid="firing-count" data-count={count}
      className="ml-2 inline-flex items-center gap-1 rounded-full bg-destructive/10 px-2 py-0.5 text-xs font-medium text-destructive hover:underline">
      <BellRing className="size-3" aria-hidden /> {count} firing
    </Link>
  );
}
