// The agent releases the gateways serve (agent_releases, written by every gateway while it serves
// them): not tenant data, read here inside the caller's organisation transaction like any table.
import { compareAgentVersions } from "@spindle/domain";
import type { OrgSql } from "@/lib/db";
import type { ReleaseSummary } from "../types/agent-upgrades";

/** A release no gateway has reported for this long is no longer offered. */
export const releaseStaleAfterHours = 24;

interface FileRow {
  os?: string;
  arch?: string;
  name?: string;
}

export async function listReleases(sql: OrgSql): Promise<ReleaseSummary[]> {
  const { rows } = await sql.query(
    `SELECT version, files, packages, last_seen_at FROM agent_releases
     WHERE last_seen_at > now() - make_interval(hours => $1)`,
    [releaseStaleAfterHours],
  );
  return rows
    .map((row) => ({
      version: row.version as string,
      platforms: [...new Set((row.files as FileRow[]).filter((f) => !f.name?.endsWith(".msi")).map((f) => `${f.os}/${f.arch}`))].sort(),
      packages: (row.packages as FileRow[])
        .map((f) => f.name ?? "")
        .filter(Boolean)
        .sort(),
      lastSeenAt: (row.last_seen_at as Date).toISOString(),
    }))
    .sort((a, b) => compareAgentVersions(b.version, a.version));
}

/** Whether a release of this version is served for this OS and architecture. */
export function servesPlatform(release: ReleaseSummary | undefined, os: string, arch: string): boolean {
  return release?.platforms.includes(`${os}/${arch}`) ?? false;
}
