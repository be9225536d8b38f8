import { UserCheck } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/format";
import type { AlertAcknowledgement } from "../types/alerts";

/** Who acknowledged a firing alert and when, with their note. */
export function AcknowledgedMark({ ack, testId }: { ack: AlertAcknowledgement; testId: string }) {
  return (
    <Badge variant="secondary" className="mt-1" data-testid={testId} title={ack.note ?? undefined}>
      <UserCheck className="size-3" aria-hidden /> acknowledged by {ack.by}, {formatDateTime(ack.at)}
      {ack.note ? `: ${ack.note}` : ""}
    </Badge>
  );
}
