import { FileCog, Plus } from "lucide-react";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import type { PolicySummary } from "../types/policy";
import { AssignmentLabel } from "./assignment-label";

export function PolicyList({ policies, canCreate }: { policies: PolicySummary[]; canCreate: boolean }) {
  if (policies.length === 0) {
    return (
      <EmptyState
        icon={FileCog}
        title="No policies yet"
        description="A policy sets the read cache, write optimisation and telemetry of the servers it is assigned to. Create one, then assign it to the organisation, a tag or a server."
        data-testid="policies-empty"
        action={
          canCreate ? (
            <Link href="/policies/new" className={buttonVariants()} data-testid="create-policy">
              <Plus /> Create policy
            </Link>
          ) : (
            <p className="text-sm text-muted-foreground">Ask an owner or admin of your organisation to create one.</p>
          )
        }
      />
    );
  }
  return (
    <div className="rounded-xl border bg-card shadow-sm">
      <Table data-testid="policy-table">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Policy</TableHead>
            <TableHead>Latest version</TableHead>
            <TableHead>Assigned to</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {policies.map((policy) => (
            <TableRow key={policy.id} data-testid="policy-row" data-policy-id={policy.id} data-name={policy.name}>
              <TableCell className="max-w-md">
                <Link href={`/policies/${policy.id}`} className="font-medium hover:underline">
                  {policy.name}
                </Link>
                {policy.archivedAt ? (
                  <Badge variant="secondary" className="ml-2">
                    archived
                  </Badge>
                ) : null}
                {policy.description ? (
                  <div className="truncate text-xs text-muted-foreground" title={policy.description}>
                    {policy.description}
                  </div>
                ) : null}
              </TableCell>
              <TableCell className="text-sm">
                <span className="font-medium">v{policy.latestVersion.version}</span>
                <span className="text-muted-foreground">
                  {" "}
                  · {formatDateTime(policy.latestVersion.createdAt)} · {policy.latestVersion.createdBy?.name ?? "a removed user"}
                </span>
                {policy.latestVersion.comment ? (
                  <div className="truncate text-xs text-muted-foreground">{policy.latestVersion.comment}</div>
                ) : null}
              </TableCell>
              <TableCell>
                {policy.assignments.length === 0 ? (
                  <span className="text-sm text-muted-foreground">not assigned</span>
                ) : (
                  <div className="flex flex-wrap gap-1.5">
                    {policy.assignments.map((assignment) => (
                      <Badge key={assignment.id} variant="outline">
                        <AssignmentLabel {...assignment} />
                      </Badge>
                    ))}
                  </div>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
