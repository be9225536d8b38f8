import type { ServerStatus } from "../types/server";

/**
 * A server is online while its last batch is at most 30 s old: three default 10 s intervals, so
 * one late or lost batch does not flap the status, yet a stopped agent shows offline within
 * half a minute. A server that enrolled but never sent telemetry is "waiting".
 */
export const ONLINE_WITHIN_SECONDS = 30;

export function serverStatus(lastSeenAt: Date | null, now: Date): ServerStatus {
  if (!lastSeenAt) return "waiting";
  return now.getTime() - lastSeenAt.getTime() <= ONLINE_WITHIN_SECONDS * 1000 ? "online" : "offline";
}
