import { ScrollText } from "lucide-react";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import { auditEntryLink, describeAuditEntry } from "../lib/describe-audit-entry";
import type { AuditEntry } from "../types/audit";

export function AuditLogTable({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) {
    return (
      <EmptyState
        icon={ScrollText}
        title="Nothing recorded yet"
        data-testid="audit-empty"
        description="Changes to policies, servers, alerts, members and security settings, and sign-ins, appear here with who made them and when."
      />
    );
  }
  return (
    <div className="rounded-xl border bg-card shadow-sm">
      <Table data-testid="audit-table">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead className="w-48">When</TableHead>
            <TableHead className="w-48">Who</TableHead>
            <TableHead>What</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {entries.map((entry) => {
            const link = auditEntryLink(entry);
            const sentence = describeAuditEntry(entry);
            return (
              <TableRow key={entry.id} data-testid="audit-row" data-action={entry.action}>
                <TableCell className="whitespace-nowrap text-sm text-muted-foreground">
                  <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </TableCell>
                <TableCell className="text-sm">
                  {entry.actor?.name ?? <span className="text-muted-foreground">system</span>}
                  {entry.apiToken ? (
                    <div className="text-xs text-muted-foreground" data-testid="audit-api-token">
                      with API token {entry.apiToken.name ? `“${entry.apiToken.name}”` : "(deleted)"}
                    </div>
                  ) : null}
                </TableCell>
                <TableCell className="text-sm">
                  {link ? (
                    <Link href={link} className="hover:underline">
                      {sentence}
                    </Link>
                  ) : (
                    sentence
                  )}
                  <div className="font-mono text-xs text-muted-foreground">{entry.action}</div>
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </div>
  );
}
