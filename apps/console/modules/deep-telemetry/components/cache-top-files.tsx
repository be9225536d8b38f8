"use client";
import { formatNumber, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { CacheTopFiles } from "../types/deep-telemetry";

/**
 * The files with the most page-cache accesses in the newest interval the agent reported, or why
 * there are none (`empty`, from the panel's capability check).
 */
export function CacheTopFilesTable({ topFiles, empty }: { topFiles: CacheTopFiles; empty: string | null }) {
  const now = useNow();
  if (topFiles.files.length === 0) {
    return <p className="text-sm text-muted-foreground" data-testid="cache-top-files-empty">{empty}</p>;
  }
  return (
    <section className="grid gap-2" data-testid="cache-top-files">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="text-sm font-semibold">Top files by accesses</h3>
        <span className="text-xs text-muted-foreground">
          {topFiles.intervalSeconds === null ? "" : `over ${formatNumber(topFiles.intervalSeconds)} s`}
          {topFiles.seenAt === null || now === null ? "" : `, ${formatRelative(topFiles.seenAt, now)}`}
        </span>
      </div>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>File</TableHead>
            <TableHead className="text-right">Accesses (pages)</TableHead>
            <TableHead className="text-right">Misses (pages)</TableHead>
            <TableHead className="text-right">Hit ratio</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {topFiles.files.map((file) => (
            <TableRow key={file.path} data-testid="cache-top-file">
              <TableCell className="max-w-0 truncate font-mono text-xs" title={file.path}>{file.path}</TableCell>
              <TableCell className="text-right tabular-nums">{file.accesses.toLocaleString()}</TableCell>
              <TableCell className="text-right tabular-nums">{file.misses.toLocaleString()}</TableCell>
              <TableCell className="text-right tabular-nums">{formatNumber(file.hitRatioPercent)} %</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <p className="text-xs text-muted-foreground">
        Files are named by a process that holds them open; inode:&lt;dev&gt;:&lt;ino&gt; means no process had the file open when the agent looked.
      </p>
    </section>
  );
}
