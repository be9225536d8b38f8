// Per-transaction tenant context for row-level security (migration 20261123130000_tenant_security).
// Every org-scoped unit of work runs in one transaction that first adopts the service's role
// (SET LOCAL ROLE) and sets spindle.org_id (set_config(..., true): transaction-local), so a pooled
// connection can never carry one organisation's context into another's query.
import type { PrismaClient } from "./generated/prisma/client.js";

/**
 * The NOLOGIN roles the services adopt per transaction; the deployment's logins hold them. Not
 * spindle_grafana: a Grafana login's organisation is bound to the login itself (migration
 * 20261128150000_grafana_login_binding), never set by a transaction.
 */
export const serviceRoles = ["spindle_console", "spindle_gateway", "spindle_worker", "spindle_system"] as const;
export type ServiceRole = (typeof serviceRoles)[number];

/** Anything with node-postgres's query method: a pg.Client or a pool's checked-out client. */
export interface TenantQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's own QueryResult types rows as any[], so a pg client satisfies this
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

function checkOrg(orgId: string): void {
  if (typeof orgId !== "string" || orgId.length === 0 || orgId.length > 200) {
    throw new Error(
      `withOrgTransaction: an organisation id is required (got ${JSON.stringify(orgId)}); ` +
        "cross-tenant work must run as spindle_system through withSystemTransaction",
    );
  }
}

/**
 * The role the migration keeps away from relations RLS cannot cover (raw telemetry, continuous
 * aggregates): it reads the organisation-filtered views of the same names in spindle_tenant,
 * so their transactions put that schema first and the same SQL works in both time-series modes.
 */
const viewReaders: readonly ServiceRole[] = ["spindle_console"];

/** The statements that open a scoped transaction (after BEGIN), in order. */
function scopeStatements(role: ServiceRole): string[] {
  const statements = [`SET LOCAL ROLE ${role}`];
  if (viewReaders.includes(role)) statements.push("SET LOCAL search_path = spindle_tenant, public");
  return statements;
}

function checkRole(role: ServiceRole): void {
  // SET ROLE takes an identifier, not a parameter: only the fixed names above are ever spliced.
  if (!serviceRoles.includes(role)) throw new Error(`unknown service role ${JSON.stringify(role)}`);
}

/**
 * Runs `work` in a transaction on `client` as `role`, seeing only organisation `orgId`; for
 * spindle_console with search_path = spindle_tenant, public.
 */
export async function withOrgTransaction<T>(
  client: TenantQueryable,
  orgId: string,
  role: ServiceRole,
  work: (tx: TenantQueryable) => Promise<T>,
): Promise<T> {
  checkOrg(orgId);
  checkRole(role);
  await client.query("BEGIN");
  try {
    for (const statement of scopeStatements(role)) await client.query(statement);
    await client.query("SELECT set_config('spindle.org_id', $1, true)", [orgId]);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Runs cross-tenant work (rollups, retention) as spindle_system, the one role whose policy sees
 * every organisation. Callers say why in code; nothing user-triggered may use this.
 */
export async function withSystemTransaction<T>(client: TenantQueryable, work: (tx: TenantQueryable) => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    await client.query("SET LOCAL ROLE spindle_system");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

export type PrismaTransaction = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

// Prisma's defaults (2 s to get a connection, 5 s per transaction) are tight for a page's reads
// on a loaded machine; these still end a stuck transaction well before a user gives up.
const transactionLimits = { maxWait: 10_000, timeout: 20_000 };

/** The Prisma form: `work` gets a transaction client scoped to `orgId` under `role`. */
export async function withOrgPrisma<T>(
  prisma: PrismaClient,
  orgId: string,
  role: ServiceRole,
  work: (tx: PrismaTransaction) => Promise<T>,
): Promise<T> {
  checkOrg(orgId);
  checkRole(role);
  return prisma.$transaction(async (tx) => {
    for (const statement of scopeStatements(role)) await tx.$executeRawUnsafe(statement);
    await tx.$queryRaw`SELECT set_config('spindle.org_id', ${orgId}, true)`;
    return work(tx);
  }, transactionLimits);
}
