"use client";
import { History, RotateCcw } from "lucide-react";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { formatDateTime } from "@/lib/format";
import { PolicyVersionVerdictsView } from "@/modules/gains/components/policy-version-verdicts";
import { diffPolicyDocuments } from "../lib/policy-diff";
import type { PolicyVersionSummary } from "../types/policy";
import { DiffTable } from "./diff-table";

/**
 * Every version, newest first, and the changes between any two. "Load into editor" starts a new
 * version from an old one: rolling back is saving it again, so history is never rewritten.
 */
export function VersionHistory({
  policyId,
  versions,
  onRestore,
  canEdit,
}: {
  policyId: string;
  versions: PolicyVersionSummary[];
  onRestore: (version: PolicyVersionSummary) => void;
  canEdit: boolean;
}) {
  const newest = versions[0]?.version ?? 1;
  const [from, setFrom] = useState(Math.max(1, newest - 1));
  const [to, setTo] = useState(newest);
  const byNumber = useMemo(() => new Map(versions.map((version) => [version.version, version])), [versions]);
  const entries = useMemo(
    () => diffPolicyDocuments(byNumber.get(from)?.document ?? {}, byNumber.get(to)?.document ?? {}),
    [byNumber, from, to],
  );

  return (
    <Card data-testid="version-history">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <History className="size-4" aria-hidden /> Versions
        </CardTitle>
        <CardDescription>
          Versions never change. Compare any two, or load an old one into the editor and save it as the next version.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        <ol className="grid divide-y rounded-lg border">
          {versions.map((version) => (
            <li
              key={version.id}
              className="flex flex-wrap items-center gap-x-4 gap-y-1 px-3 py-2 text-sm"
              data-testid="version-row"
              data-version={version.version}
            >
              <span className="w-10 font-semibold">v{version.version}</span>
              <span className="text-muted-foreground">{formatDateTime(version.createdAt)}</span>
              <span>{version.createdBy?.name ?? "a removed user"}</span>
              <span className="min-w-0 flex-1 truncate text-muted-foreground" title={version.comment}>
                {version.comment || "no comment"}
              </span>
              {canEdit && version.version !== newest ? (
                <Button variant="ghost" size="sm" onClick={() => onRestore(version)} data-testid="restore-version">
                  <RotateCcw /> Load into editor
                </Button>
              ) : null}
              <PolicyVersionVerdictsView policyId={policyId} version={version.version} />
            </li>
          ))}
        </ol>
        {versions.length > 1 ? (
          <div className="grid gap-3">
            <div className="flex flex-wrap items-end gap-3">
              <div className="grid gap-1.5">
                <Label htmlFor="diff-from">Compare</Label>
                <Select id="diff-from" value={from} onChange={(event) => setFrom(Number(event.target.value))} className="w-28">
                  {versions.map((version) => (
                    <option key={version.id} value={version.version}>
                      v{version.version}
                    </option>
                  ))}
                </Select>
              </div>
              <div className="grid gap-1.5">
                <Label htmlFor="diff-to">with</Label>
                <Select id="diff-to" value={to} onChange={(event) => setTo(Number(event.target.value))} className="w-28">
                  {versions.map((version) => (
                    <option key={version.id} value={version.version}>
                      v{version.version}
                    </option>
                  ))}
                </Select>
              </div>
            </div>
            <DiffTable entries={entries} />
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
