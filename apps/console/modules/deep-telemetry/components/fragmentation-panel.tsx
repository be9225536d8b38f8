"use client";
import { formatBytes, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { Panel } from "./panel";

/** The newest FIEMAP scan of each root and its most fragmented files. Not range-bound. */
export function FragmentationPanel({ deep }: { deep: DeepTelemetry }) {
  const now = useNow();
  const empty =
    deep.fragmentation.length === 0
      ? "No fragmentation scan has been reported. The agent scans its configured paths and detected database directories (PostgreSQL, MySQL/MariaDB) once per scan period (1 h by default) on Linux."
      : null;
  return (
    <Panel
      testId="panel-fragmentation"
      title="Fragmentation"
      description="Extents per file as filefrag counts them, from the newest complete scan of each root. Excess extents are the fragments a contiguous layout would not have."
      empty={empty}
    >
      <div className="grid gap-6">
        {deep.fragmentation.map((root) => (
          <section key={root.root} className="grid gap-2" data-testid="fragmentation-root" data-root={root.root}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 className="font-mono text-sm font-semibold">{root.root}</h3>
              <span className="text-xs text-muted-foreground">
                scanned {now === null ? "" : formatRelative(root.scannedAt, now)}{" "}
                {root.scanDurationMs === null ? "(duration not measured)" : `in ${(root.scanDurationMs / 1000).toFixed(1)} s`}
              </span>
            </div>
            <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm md:grid-cols-4">
              {[
                ["Files", root.files],
                ["Fragmented files", root.fragmentedFiles],
                ["Extents", root.extents],
                ["Excess extents", root.excessExtents],
              ].map(([term, value]) => (
                <div key={term}>
                  <dt className="text-xs text-muted-foreground">{term}</dt>
                  <dd className="font-medium tabular-nums">{Number(value).toLocaleString()}</dd>
                </div>
              ))}
            </dl>
            {root.unsupportedFiles ? (
              <p className="text-xs text-muted-foreground">
                {root.unsupportedFiles.toLocaleString()} files skipped: their file system cannot map extents.
              </p>
            ) : null}
            {root.worstFiles.length > 0 ? (
              <Table data-testid="worst-files">
                <TableHeader>
                  <TableRow>
                    <TableHead>Most fragmented files</TableHead>
                    <TableHead className="text-right">Extents</TableHead>
                    <TableHead className="text-right">Size</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {root.worstFiles.map((file) => (
                    <TableRow key={file.path} data-testid="worst-file">
                      <TableCell className="max-w-0 truncate font-mono text-xs" title={file.path}>
                        {file.path}
                      </TableCell>
                      <TableCell className="text-right tabular-nums">{file.extents.toLocaleString()}</TableCell>
                      <TableCell className="text-right tabular-nums">{formatBytes(file.sizeBytes)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            ) : null}
          </section>
        ))}
      </div>
    </Panel>
  );
}
