"use client";
// A notice in the corner of every page when a rollout completes or rolls back, with the reason,
// until it is dismissed. What was already seen is remembered per browser and organisation, so a
// notice shows once; a rollback also raises an alert through the organisation's channels.
import { X } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { fetchJson } from "@/lib/fetch-json";
import type { RolloutNotice } from "../types/rollout";

const pollMs = 15_000;

export function RolloutNotices({ orgId }: { orgId: string }) {
  const [shown, setShown] = useState<RolloutNotice[]>([]);
  const seen = useRef<string | null>(null);
  const key = `spindle.rollout-notices.${orgId}`;

  useEffect(() => {
    let stopped = false;
    seen.current = window.localStorage.getItem(key);
    const poll = async () => {
      try {
        const after = seen.current;
        const { notices } = await fetchJson<{ notices: RolloutNotice[] }>(`/api/rollouts/notices${after ? `?after=${after}` : ""}`, {
          cache: "no-store",
        });
        if (stopped) return;
        if (notices.length === 0) {
          // Nothing has finished yet: from now on every completion or rollback is news.
          if (after === null) window.localStorage.setItem(key, (seen.current = "0"));
          return;
        }
        seen.current = notices[0]!.eventId;
        window.localStorage.setItem(key, seen.current);
        // The first visit only remembers where the history stands; it announces nothing old.
        if (after !== null) setShown((current) => [...notices.reverse(), ...current].slice(0, 5));
      } catch {
        // A missed poll is retried at the next one.
      }
    };
    void poll();
    const timer = setInterval(() => document.visibilityState === "visible" && void poll(), pollMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);

  if (shown.length === 0) return null;
  return (
    <div className="fixed bottom-4 right-4 z-20 grid w-96 max-w-[calc(100vw-2rem)] gap-2 print:hidden" aria-live="polite">
      {shown.map((notice) => (
        <div
          key={notice.eventId}
          role="status"
          data-testid="rollout-notice"
          data-kind={notice.kind}
          className={`grid gap-1 rounded-lg border bg-card p-3 text-sm shadow-lg ${notice.kind === "rollout.rolled_back" ? "border-destructive/60" : "border-success/60"}`}
        >
          <span className="flex items-start justify-between gap-2">
            <Link href={`/rollouts/${notice.rolloutId}`} className="font-medium underline-offset-2 hover:underline">
              {notice.kind === "rollout.completed" ? "Rollout completed" : "Rollout rolled back"}: {notice.title}
            </Link>
            <button
              type="button"
              aria-label="Dismiss"
              onClick={() => setShown((current) => current.filter((n) => n.eventId !== notice.eventId))}
            >
              <X className="size-4" />
            </button>
          </span>
          <span className="text-muted-foreground">{notice.message}</span>
        </div>
      ))}
    </div>
  );
}
