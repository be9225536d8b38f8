import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export interface PrismaOptions {
  /** Most connections the client's pool opens (default 10). */
  max?: number;
}

/**
 * The typed client for the relational model, on node-postgres through Prisma's driver adapter
 * (no native engine: Prisma 7 compiles queries in WebAssembly). Call `$disconnect()` when done.
 */
export function createPrisma(databaseUrl: string, options: PrismaOptions = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
  // Prisma's defaults (2 s to get a connection, 5 s per interactive transaction) are tight on a
  // loaded machine; these match the tenant transactions' limits (tenant.ts) and apply to the
  // transactions better-auth opens itself (sign-up, single sign-on account linking).
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
}
