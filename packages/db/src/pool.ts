import pg from "pg";
import { describeDatabaseUrl } from "./connect.js";

export interface PoolOptions {
  /** Most connections the pool opens (default 10). */
  max?: number;
  /** Shown in pg_stat_activity, so a DBA can tell the services apart. */
  applicationName?: string;
  /** Connection errors (server restart, network cut); default: logged to stderr. */
  onIdleError?: (error: Error) => void;
}

/**
 * A node-postgres pool for hand-written SQL (time series, COPY, LISTEN/NOTIFY). An idle
 * connection that the server drops must not crash the process, hence the error listener.
 */
export function createPool(databaseUrl: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 10_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  const where = describeDatabaseUrl(databaseUrl);
  const onError =
    options.onIdleError ??
    ((error: Error) => console.error(`a PostgreSQL connection to ${where} failed (the pool replaces it): ${error.message}`));
  pool.on("error", onError);
  // A connection that fails while checked out emits on the client; without a listener that
  // would be an uncaught exception. The query in flight still rejects and reports it.
  pool.on("connect", (client) => client.on("error", onError));
  return pool;
}
