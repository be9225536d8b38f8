"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { fetchJson } from "./fetch-json";

export const REFRESH_INTERVAL_MS = 10_000;

/**
 * Fetches `url` now and every `intervalMs` while the tab is visible. A failed refresh keeps the
 * last good data and reports the error, so a blip does not blank the page. A null url fetches
 * nothing (the page has nothing valid to ask for).
 */
export function usePolling<T>(
  url: string | null,
  { initial, intervalMs = REFRESH_INTERVAL_MS }: { initial?: T; intervalMs?: number } = {},
) {
  const [data, setData] = useState<T | undefined>(initial);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(initial === undefined);
  const latestUrl = useRef(url);
  latestUrl.current = url;

  const refresh = useCallback(async () => {
    const requested = url;
    if (requested === null) return;
    try {
      const next = await fetchJson<T>(requested, { cache: "no-store" });
      if (latestUrl.current !== requested) return; // the range changed meanwhile
      setData(next);
      setError(null);
    } catch (failure) {
      if (latestUrl.current === requested) setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      if (latestUrl.current === requested) setLoading(false);
    }
  }, [url]);

  useEffect(() => {
    if (url === null) return;
    setLoading(true);
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [refresh, intervalMs, url]);

  return { data, error, loading, refresh };
}
