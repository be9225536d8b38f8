"use client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import type { EnrollmentTokenStatus, EnrollmentTokenSummary } from "../types/enrollment-token";

const statusVariant: Record<EnrollmentTokenStatus, "success" | "secondary" | "destructive"> = {
  active: "success",
  expired: "secondary",
  revoked: "destructive",
};

export function TokenList({
  tokens,
  canRevoke,
  onRevoke,
  revoking,
}: {
  tokens: EnrollmentTokenSummary[];
  canRevoke: boolean;
  onRevoke: (id: string) => void;
  revoking: string | null;
}) {
  const now = useNow();
  if (tokens.length === 0) return <p className="text-sm text-muted-foreground">No enrolment tokens yet.</p>;
  return (
    <Table data-testid="token-list">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Token</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Expires</TableHead>
          <TableHead>Uses</TableHead>
          <TableHead className="hidden md:table-cell">Last used</TableHead>
          <TableHead className="w-0" />
        </TableRow>
      </TableHeader>
      <TableBody>
        {tokens.map((token) => (
          <TableRow key={token.id} data-testid="token-row" data-token-id={token.id} data-status={token.status}>
            <TableCell>
              <div className="font-medium">{token.label || "Unlabelled"}</div>
              <div className="font-mono text-xs text-muted-foreground">spe_…{token.hint}</div>
            </TableCell>
            <TableCell>
              <Badge variant={statusVariant[token.status]} className="capitalize">
                {token.status}
              </Badge>
            </TableCell>
            <TableCell className="text-muted-foreground">{formatDateTime(token.expiresAt)}</TableCell>
            <TableCell>{token.uses}</TableCell>
            <TableCell className="hidden text-muted-foreground md:table-cell">
              {now === null ? "" : formatRelative(token.lastUsedAt, now)}
            </TableCell>
            <TableCell>
              {canRevoke && token.status === "active" ? (
                <Button
                  variant="outline"
                  size="sm"
                  onClick={() => onRevoke(token.id)}
                  disabled={revoking === token.id}
                  aria-label={`Revoke token ${token.label || token.hint}`}
                  data-testid="revoke-token"
                >
                  {revoking === token.id ? "Revoking…" : "Revoke"}
                </Button>
              ) : null}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
