import type { ServerSummary } from "../types/server";
import { serverStatus } from "./server-status";

export const serverSummarySelect = {
  id: true,
  hostname: true,
  os: true,
  osVersion: true,
  kernel: true,
  arch: true,
  agentVersion: true,
  createdAt: true,
  lastSeenAt: true,
} as const;

type ServerRow = Omit<ServerSummary, "createdAt" | "lastSeenAt" | "status"> & { createdAt: Date; lastSeenAt: Date | null };

export function summariseServer(row: ServerRow, now: Date): ServerSummary {
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    status: serverStatus(row.lastSeenAt, now),
  };
}
