import { Badge } from "@/components/ui/badge";
import type { PolicyStatusState } from "../types/policy";

const look: Record<PolicyStatusState, { label: string; variant: "success" | "warning" | "destructive" | "secondary" }> = {
  applied: { label: "Applied", variant: "success" },
  pending: { label: "Pending", variant: "warning" },
  failed: { label: "Failed", variant: "destructive" },
  invalid: { label: "Invalid policy", variant: "destructive" },
};

export function PolicyStatusBadge({ state }: { state: PolicyStatusState }) {
  return (
    <Badge variant={look[state].variant} data-testid="policy-status" data-status={state}>
      {look[state].label}
    </Badge>
  );
}
