"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * The page's query string as the state of its view, so that any view can be shared by its URL.
 * Changes go through the History API, which Next.js keeps in step with useSearchParams: no
 * server round trip, and Back returns to the previous view when a change is pushed (a choice),
 * not when it replaces (each keystroke of a search).
 */
export function useUrlQuery(): { params: URLSearchParams; setParams: (next: URLSearchParams, mode?: "push" | "replace") => void } {
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const setParams = useCallback(
    (next: URLSearchParams, mode: "push" | "replace" = "push") => {
      const query = next.toString();
      const url = query ? `${pathname}?${query}` : pathname;
      if (mode === "push") window.history.pushState(null, "", url);
      else window.history.replaceState(null, "", url);
    },
    [pathname],
  );
  return { params: new URLSearchParams(searchParams.toString()), setParams };
}
