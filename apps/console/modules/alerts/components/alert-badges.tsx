import type { AlertSeverity, AlertState } from "@spindle/domain";
import { Badge } from "@/components/ui/badge";

const severityVariant = { critical: "destructive", warning: "warning", info: "secondary" } as const;

export function SeverityBadge({ severity }: { severity: AlertSeverity }) {
  return (
    <Badge variant={severityVariant[severity]} data-testid="alert-severity" data-severity={severity}>
      {severity}
    </Badge>
  );
}

const stateWords: Record<AlertState, string> = { ok: "resolved", pending: "pending", firing: "firing", no_data: "no data" };
const stateVariant = { ok: "success", pending: "outline", firing: "destructive", no_data: "warning" } as const;

/** A change *to* ok reads "resolved" to a person; as a starting state it is just "ok". */
export function StateBadge({ state, from = false }: { state: AlertState; from?: boolean }) {
  return (
    <Badge variant={stateVariant[state]} data-testid="alert-state" data-state={state}>
      {from && state === "ok" ? "ok" : stateWords[state]}
    </Badge>
  );
}

export function stateWord(state: AlertState): string {
  return stateWords[state];
}
