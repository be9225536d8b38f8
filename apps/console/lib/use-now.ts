"use client";
import { useEffect, useState } from "react";

/** The current time, ticking; null during server rendering so relative times never mismatch on hydration. */
export function useNow(tickMs = 1000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return now;
}
