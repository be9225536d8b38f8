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
  return new PrismaClient({ adapter });
}
