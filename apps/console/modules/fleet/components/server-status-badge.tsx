import { Badge } from "@/components/ui/badge";
import type { ServerStatus } from "../types/server";

const looks: Record<ServerStatus, { label: string; variant: "success" | "secondary" | "warning"; dot: string }> = {
  online: { label: "Online", variant: "success", dot: "bg-success" },
  offline: { label: "Offline", variant: "secondary", dot: "bg-muted-foreground" },
  waiting: { label: "Waiting for data", variant: "warning", dot: "bg-warning" },
};

export function ServerStatusBadge({ status }: { status: ServerStatus }) {
  const look = looks[status];
  return (
    <Badge variant={look.variant} data-testid="server-status" data-status={status}>
      <span className={`size-1.5 rounded-full ${look.dot}`} aria-hidden />
      {look.label}
    </Badge>
  );
}
