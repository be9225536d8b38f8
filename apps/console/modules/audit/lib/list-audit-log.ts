import { inOrg, type Db } from "@/lib/db";
import { findAuthors } from "@/modules/policies/lib/summarise-policy";
import type { AuditEntry } from "../types/audit";

export const AUDIT_PAGE_SIZE = 50;

/** The organisation's audit log, newest first, a page at a time (`before` = the last id shown). */
export async function listAuditLog(
  db: Db,
  orgId: string,
  { before }: { before?: string } = {},
): Promise<{ entries: AuditEntry[]; nextBefore: string | null }> {
  const cursor = before && /^\d{1,19}$/.test(before) ? BigInt(before) : undefined;
  const [rows, authors, tokens] = await inOrg(db, orgId, async (tx) => {
    const found = await tx.auditLog.findMany({
      where: { orgId, ...(cursor !== undefined ? { id: { lt: cursor } } : {}) },
      orderBy: { id: "desc" },
      take: AUDIT_PAGE_SIZE + 1,
    });
    const shown = found.slice(0, AUDIT_PAGE_SIZE);
    const tokenIds = [...new Set(shown.map((row) => row.apiTokenId).filter((id): id is string => Boolean(id)))];
    const named = tokenIds.length
      ? await tx.apikey.findMany({ where: { id: { in: tokenIds }, referenceId: orgId }, select: { id: true, name: true } })
      : [];
    return [
      found,
      await findAuthors(
        tx,
        shown.map((row) => row.actorId),
      ),
      new Map(named.map((token) => [token.id, token.name])),
    ] as const;
  });
  const page = rows.slice(0, AUDIT_PAGE_SIZE);
  return {
    entries: page.map((row) => ({
      id: row.id.toString(),
      at: row.at.toISOString(),
      actor: row.actorId ? (authors.get(row.actorId) ?? { id: row.actorId, name: "a removed user" }) : null,
      action: row.action,
      target: row.target,
      details: (row.details ?? {}) as Record<string, unknown>,
      apiToken: row.apiTokenId ? { id: row.apiTokenId, name: tokens.get(row.apiTokenId) ?? null } : null,
    })),
    nextBefore: rows.length > AUDIT_PAGE_SIZE ? (page.at(-1)?.id.toString() ?? null) : null,
  };
}
