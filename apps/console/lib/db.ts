// One Prisma client (relational data) and one pg pool (time series) per server process. Kept on
// globalThis because `next dev` re-evaluates modules on every edit and would leak connections.
import type * as SpindleDb from "@spindle/db";
import { env } from "@/lib/env";

// @spindle/db is loaded by Node at run time instead of being bundled: it is a workspace package
// (Turbopack bundles those even when listed in serverExternalPackages) and it carries the
// migration runner and embedded PostgreSQL, whose file-system lookups a bundle cannot resolve.
const { createPool, createPrisma, withOrgPrisma } = (await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "@spindle/db")) as typeof SpindleDb;

export type Prisma = ReturnType<typeof SpindleDb.createPrisma>;
export type Pool = ReturnType<typeof SpindleDb.createPool>;
export type OrgTransaction = SpindleDb.PrismaTransaction;

/**
 * Runs `work` in one transaction as the database role spindle_console with spindle.org_id set to
 * `orgId`, so row-level security (migration 20261123130000_tenant_security) refuses any row of
 * another organisation even if a query forgets its org_id filter.
 */
export function inOrg<T>(db: Prisma, orgId: string, work: (tx: OrgTransaction) => Promise<T>): Promise<T> {
  return withOrgPrisma(db, orgId, "spindle_console", work);
}

const holder = globalThis as unknown as { spindlePrisma?: Prisma; spindlePool?: Pool };

export function prisma(): Prisma {
  holder.spindlePrisma ??= createPrisma(env().DATABASE_URL);
  return holder.spindlePrisma;
}

export function pool(): Pool {
  holder.spindlePool ??= createPool(env().DATABASE_URL, { applicationName: "spindle-console" });
  return holder.spindlePool;
}
