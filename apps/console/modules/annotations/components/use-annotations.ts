"use client";
import { usePolling } from "@/lib/use-polling";
import type { Annotations } from "../types/annotation";

/** The marks of some servers over a chart window (`windowQuery`: range=… or from=…&to=…), refreshed with the charts. */
export function useAnnotations(serverIds: readonly string[], windowQuery: string) {
  const { data, error } = usePolling<Annotations>(
    serverIds.length > 0 ? `/api/annotations?servers=${serverIds.join(",")}&${windowQuery}` : null,
  );
  return { annotations: data?.annotations ?? [], truncated: data?.truncated ?? false, error };
}
