// API tokens of an organisation: list, create (the secret is answered once), revoke. better-auth's
// api-key plugin generates, hashes and checks them; these operations add the console's rules
// (a token acts with at most its creator's role; members revoke their own, owners and admins
// anyone's) and the audit log.
import { database, identityTables, inOrg, type Db } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import { auth } from "@/modules/auth/lib/auth";
import type { OrgContext } from "@/modules/auth/types/context";
import { apiTokenMetadata, type ApiTokenMetadata, type ApiTokenSummary, type CreateApiTokenInput } from "../types/api-token";

interface StoredToken {
  id: string;
  name: string | null;
  start: string | null;
  enabled: boolean | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastRequest: Date | null;
  metadata: unknown;
}

function parseMetadata(value: unknown): ApiTokenMetadata | null {
  const parsed = apiTokenMetadata.safeParse(typeof value === "string" ? JSON.parse(value) : value);
  return parsed.success ? parsed.data : null;
}

function summarise(row: StoredToken, names: Map<string, string>, now = new Date()): ApiTokenSummary | null {
  const metadata = parseMetadata(row.metadata);
  if (!metadata) return null;
  const revoked = row.enabled === false;
  return {
    id: row.id,
    name: row.name ?? "",
    role: metadata.role,
    start: row.start,
    status: revoked ? "revoked" : row.expiresAt && row.expiresAt <= now ? "expired" : "active",
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastRequest?.toISOString() ?? null,
    revokedAt: revoked ? (metadata.revokedAt ?? null) : null,
    createdBy: names.has(metadata.createdBy) ? { id: metadata.createdBy, name: names.get(metadata.createdBy)! } : null,
  };
}

async function namesOf(userIds: string[]): Promise<Map<string, string>> {
  const users = await identityTables(database()).user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true } });
  return new Map(users.map((user) => [user.id, user.name]));
}

async function audit(db: Db, context: OrgContext, action: string, target: string, details: Record<string, string>) {
  await inOrg(db, context.orgId, (tx) =>
    tx.auditLog.create({ data: { orgId: context.orgId, actorId: context.userId, action, target, details } }),
  );
}

export async function listApiTokens(orgId: string): Promise<ApiTokenSummary[]> {
  const rows = await identityTables(database()).apikey.findMany({ where: { referenceId: orgId }, orderBy: { createdAt: "desc" } });
  const names = await namesOf([
    ...new Set(rows.map((row) => parseMetadata(row.metadata)?.createdBy).filter((id): id is string => Boolean(id))),
  ]);
  return rows.map((row) => summarise(row, names)).filter((token): token is ApiTokenSummary => token !== null);
}

export async function createApiToken(
  db: Db,
  context: OrgContext,
  input: CreateApiTokenInput,
): Promise<ApiTokenSummary & { secret: string }> {
  if (input.role === "admin" && context.role === "viewer") {
    throw forbidden("Your role (viewer) can create read-only tokens only: choose the viewer role, or ask an owner or admin.");
  }
  const metadata: ApiTokenMetadata = { role: input.role, createdBy: context.userId };
  const created = await auth().api.createApiKey({
    body: { name: input.name, expiresIn: input.expiresInDays * 86_400, organizationId: context.orgId, userId: context.userId, metadata },
  });
  await audit(db, context, "api_token.created", created.id, {
    name: input.name,
    role: input.role,
    expiresAt: created.expiresAt ? new Date(created.expiresAt).toISOString() : "",
  });
  const summary = summarise(
    {
      ...created,
      createdAt: new Date(created.createdAt),
      expiresAt: created.expiresAt ? new Date(created.expiresAt) : null,
      lastRequest: null,
      metadata,
    },
    new Map([[context.userId, context.userName]]),
  );
  if (!summary) throw new ProblemError(500, "Internal server error", "The token was created without its role; revoke it and try again.");
  return { ...summary, secret: created.key };
}

export async function revokeApiToken(db: Db, context: OrgContext, tokenId: string): Promise<ApiTokenSummary> {
  const row = await identityTables(database()).apikey.findFirst({ where: { id: tokenId, referenceId: context.orgId } });
  const metadata = row ? parseMetadata(row.metadata) : null;
  if (!row || !metadata) throw notFound("This API token");
  if (metadata.createdBy !== context.userId && !can(context.role, { apiToken: ["revoke"] })) {
    throw forbidden(`Your role (${context.role}) can revoke only the tokens you created; ask an owner or admin of ${context.orgName}.`);
  }
  if (row.enabled !== false) {
    const revoked: ApiTokenMetadata = { ...metadata, revokedAt: new Date().toISOString(), revokedBy: context.userId };
    await auth().api.updateApiKey({ body: { keyId: tokenId, userId: context.userId, enabled: false, metadata: revoked } });
    await audit(db, context, "api_token.revoked", tokenId, { name: row.name ?? "" });
  }
  const [token] = await listApiTokens(context.orgId).then((tokens) => tokens.filter((t) => t.id === tokenId));
  return token!;
}
