"use client";
import { formatNumber, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { CacheTopFiles } from "../types/deep-telemetry";
import { findCommand, parseTopFileName } from "../lib/file-name";

/** A file as a user can find it: its path, or its inode on its mount point with what was tried. */
function FileCell({ name }: { name: string }) {
  const parsed = parseTopFileName(name);
  if (parsed.kind === "path")
    return (
      <span className="break-all font-mono text-xs" data-testid="cache-top-file-path">
        {parsed.path}
      </span>
    );
  const find = findCommand(parsed);
  return (
    <div className="grid gap-0.5" data-testid="cache-top-file-inode">
      <span className="font-mono text-xs">
        inode {parsed.inode} on{" "}
        {parsed.mountPoint ?? <span className="font-sans italic">a file system not mounted where the agent runs</span>}{" "}
        <span className="text-muted-foreground">(device {parsed.device})</span>
      </span>
      <span className="text-xs text-muted-foreground">No path: {parsed.tried.join("; ")}.</span>
      {find ? <code className="break-all text-xs text-muted-foreground">{find}</code> : null}
    </div>
  );
}

/**
 * The files with the most page-cache accesses in the newest interval the agent reported, or why
 * there are none (`empty`, from the panel's capability check).
 */
export function CacheTopFilesTable({ topFiles, empty }: { topFiles: CacheTopFiles; empty: string | null }) {
  const now = useNow();
  if (topFiles.files.length === 0) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="cache-top-files-empty">
        {empty}
      </p>
    );
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
              <TableCell className="max-w-md whitespace-normal align-top">
                <FileCell name={file.path} />
              </TableCell>
              <TableCell className="text-right tabular-nums">{file.accesses.toLocaleString()}</TableCell>
              <TableCell className="text-right tabular-nums">{file.misses.toLocaleString()}</TableCell>
              <TableCell className="text-right tabular-nums">{formatNumber(file.hitRatioPercent)} %</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <p className="text-xs text-muted-foreground">
        The agent names each file by a process that holds it open or maps it, or (on ext2/3/4) by the name the kernel still caches for it. A
        file none of these names is shown by its inode on its file system, with what was tried and the command that finds it.
      </p>
    </section>
  );
}
