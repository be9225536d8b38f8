// The console's database access. Organisation data is reachable only through inOrg (Prisma) and
// inOrgSql (hand-written SQL on the pg pool): each runs one transaction as the role
// spindle_console with spindle.org_id set, so row-level security and the spindle_tenant views
// (migration 20261123130000_tenant_security) refuse any row of another organisation even when a
// query forgets its org_id filter. The raw clients never leave this file, except the identity
// tables better-auth owns (users, sessions, members, invitations, organizations: not tenant
// tables), which identityTables / authPrisma hand out typed to those tables only.
// One Prisma client and one pg pool per server process, kept on globalThis because `next dev`
// re-evaluates modules on every edit and would leak connections.
import { AsyncLocalStorage } from "node:async_hooks";
import type * as SpindleDb from "@spindle/db";
import type * as Timeseries from "@spindle/timeseries";
import type { PoolClient } from "pg";
import { env } from "@/lib/env";

// @spindle/db is loaded by Node at run time instead of being bundled: it is a workspace package
// (Turbopack bundles those even when listed in serverExternalPackages) and it carries the
// migration runner and embedded PostgreSQL, whose file-system lookups a bundle cannot resolve.
const { createPool, createPrisma, withOrgPrisma, withOrgTransaction } = (await import(
  /* turbopackIgnore: true */ /* webpackIgnore: true */ "@spindle/db"
)) as typeof SpindleDb;

export type Prisma = ReturnType<typeof SpindleDb.createPrisma>;
export type Pool = ReturnType<typeof SpindleDb.createPool>;
/** A Prisma transaction scoped to one organisation under spindle_console. */
export type OrgTransaction = SpindleDb.PrismaTransaction;
/** A pg connection inside a transaction scoped to one organisation, telemetry read through spindle_tenant. */
export type OrgSql = Pick<PoolClient, "query">;

/** The tables better-auth owns; they have no org_id and no row-level security. */
export type IdentityTables = Pick<
  Prisma,
  "user" | "session" | "account" | "member" | "invitation" | "organization" | "twoFactor" | "apikey" | "ssoProvider"
>;

declare const opaque: unique symbol;
/** The process's (or a test's) connections, opaque: open it with inOrg / inOrgSql. */
export interface Db {
  readonly [opaque]: true;
}

// On globalThis, like the clients below: a production build may carry this module in several
// chunks, and a handle made by one must open in the others.
const shared = globalThis as unknown as { spindleDbConnections?: WeakMap<object, { prisma: Prisma; pool: Pool }> };
const connections = (shared.spindleDbConnections ??= new WeakMap());

/** Wraps a Prisma client and a pool as a Db; for this file and the tests' per-file databases. */
export function databaseOf<T extends object = object>(prisma: Prisma, pool: Pool, target?: T): T & Db {
  const db = (target ?? {}) as T & Db;
  connections.set(db, { prisma, pool });
  return db;
}

function open(db: Db): { prisma: Prisma; pool: Pool } {
  const found = connections.get(db);
  if (!found) throw new Error("not a Spindle database handle: use database() or databaseOf()");
  return found;
}

// The API token a request was authenticated with, for the length of that request: every
// transaction opened meanwhile sets spindle.api_token_id, which audit_log rows take as their
// api_token_id (migration 20261128140000_identity_automation), so no operation passes it along.
const requestToken = new AsyncLocalStorage<{ apiTokenId: string }>();

/** Runs `work` with every transaction it opens marked as made with this API token. */
export function asApiToken<T>(apiTokenId: string | undefined, work: () => Promise<T>): Promise<T> {
  return apiTokenId ? requestToken.run({ apiTokenId }, work) : work();
}

function currentApiTokenId(): string | undefined {
  return requestToken.getStore()?.apiTokenId;
}

/** One unit of work on the organisation's relational rows, in one transaction. */
export function inOrg<T>(db: Db, orgId: string, work: (tx: OrgTransaction) => Promise<T>): Promise<T> {
  const apiTokenId = currentApiTokenId();
  return withOrgPrisma(open(db).prisma, orgId, "spindle_console", async (tx) => {
    if (apiTokenId) await tx.$queryRaw`SELECT set_config('spindle.api_token_id', ${apiTokenId}, true)`;
    return work(tx);
  });
}

/**
 * One unit of work in hand-written SQL (telemetry, aggregates), in one transaction on one pooled
 * connection. The shared helper sets search_path = spindle_tenant, public for spindle_console, so
 * `disk_io`, `disk_io_1m`… name the organisation-filtered views wherever RLS cannot apply, in both
 * time-series modes.
 */
export async function inOrgSql<T>(db: Db, orgId: string, work: (sql: OrgSql) => Promise<T>): Promise<T> {
  const client = await open(db).pool.connect();
  const apiTokenId = currentApiTokenId();
  try {
    return await withOrgTransaction(client, orgId, "spindle_console", async () => {
      if (apiTokenId) await client.query("SELECT set_config('spindle.api_token_id', $1, true)", [apiTokenId]);
      return work(client);
    });
  } finally {
    client.release();
  }
}

/**
 * The rule editor's preview: @spindle/timeseries' replay of a rule over the organisation's last 7
 * days (the same signal sources the worker evaluates), in one transaction as spindle_console with
 * the organisation set (the package opens it on a pooled connection, so the connection stays in
 * this file). Loaded at run time like @spindle/db, which it imports.
 */
export async function previewAlertRule(db: Db, orgId: string, rule: unknown, now?: Date): ReturnType<typeof Timeseries.previewRule> {
  const { previewRule } = (await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "@spindle/timeseries")) as typeof Timeseries;
  const client = await open(db).pool.connect();
  try {
    return await previewRule(client, orgId, rule, { role: "spindle_console", ...(now ? { now } : {}) });
  } finally {
    client.release();
  }
}

/** Resolves when the database answers a trivial query (the readiness probe). */
export async function pingDatabase(db: Db): Promise<void> {
  await open(db).pool.query("SELECT 1");
}

/**
 * Counts one request of an API token in its current fixed window (one UPDATE, so every console
 * replica shares the count). `count` is this request's number in the window; a count above the
 * limit is refused by the caller, with Retry-After = `retryAfterSeconds`.
 */
export async function countApiTokenRequest(
  db: Db,
  tokenId: string,
  windowSeconds: number,
): Promise<{ count: number; retryAfterSeconds: number } | null> {
  const rows = await open(db).prisma.$queryRaw<{ count: number; retry_after: number }[]>`
    UPDATE api_tokens SET
      rate_window_count = CASE WHEN rate_window_started_at IS NULL OR rate_window_started_at <= now() - make_interval(secs => ${windowSeconds})
                               THEN 1 ELSE rate_window_count + 1 END,
      rate_window_started_at = CASE WHEN rate_window_started_at IS NULL OR rate_window_started_at <= now() - make_interval(secs => ${windowSeconds})
                                    THEN now() ELSE rate_window_started_at END
    WHERE id = ${tokenId}
    RETURNING rate_window_count AS count,
      GREATEST(1, CEIL(EXTRACT(EPOCH FROM rate_window_started_at + make_interval(secs => ${windowSeconds}) - now())))::int AS retry_after`;
  const row = rows[0];
  return row ? { count: row.count, retryAfterSeconds: row.retry_after } : null;
}

/** better-auth's tables, for reading memberships and invitations outside any organisation. */
export function identityTables(db: Db): IdentityTables {
  return open(db).prisma;
}

const holder = globalThis as unknown as { spindleDb?: Db; spindlePrisma?: Prisma };

function processPrisma(): Prisma {
  holder.spindlePrisma ??= createPrisma(env().DATABASE_URL);
  return holder.spindlePrisma;
}

/** The server process's database. */
export function database(): Db {
  holder.spindleDb ??= databaseOf(processPrisma(), createPool(env().DATABASE_URL, { applicationName: "spindle-console" }));
  return holder.spindleDb;
}

/** The whole client, for better-auth's adapter only (it touches nothing but its own tables). */
export function authPrisma(): Prisma {
  return processPrisma();
}
