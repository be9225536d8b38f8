export type ServerStatus = "online" | "offline" | "waiting";

export interface ServerSummary {
  id: string;
  hostname: string;
  os: string;
  osVersion: string;
  kernel: string;
  arch: string;
  agentVersion: string;
  createdAt: string;
  lastSeenAt: string | null;
  status: ServerStatus;
}
