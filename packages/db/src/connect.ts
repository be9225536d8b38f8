import pg from "pg";

/** The database could not be reached or refused us; the message says what to check. */
export class DatabaseConnectionError extends Error {
  override readonly name = "DatabaseConnectionError";
}

/** Where a URL points, without its password, for messages and logs. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
    return `${user}${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}

/**
 * One dedicated connection, for work that needs a single session (migrations, locks). When the
 * server ends the session (a FATAL such as CREATE EXTENSION timescaledb without
 * shared_preload_libraries, or an administrator's pg_terminate_backend) the statement running
 * rejects with the server's message, which the caller reports; pg also emits an 'error' event,
 * which without a listener crashed the process with "Connection terminated unexpectedly" instead.
 */
export async function connectClient(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw explainConnectionFailure(databaseUrl, error);
  }
  return client;
}

export function explainConnectionFailure(databaseUrl: string, error: unknown): DatabaseConnectionError {
  const where = describeDatabaseUrl(databaseUrl);
  const { code, message } = error as { code?: string; message?: string };
  const advice: Record<string, string> = {
    ECONNREFUSED: "nothing listens there: is PostgreSQL running, and are host and port right?",
    ENOTFOUND: "the host name does not resolve: check the host in DATABASE_URL.",
    ETIMEDOUT: "the connection timed out: check the host, the port and any firewall in between.",
    "28P01": "the password was rejected: check the user and password in DATABASE_URL.",
    "28000": "the server refused this user (pg_hba.conf): check the user, or the server's access rules.",
    "3D000": "the database does not exist: create it (CREATE DATABASE) or fix the name in DATABASE_URL.",
    "57P03": "the server is starting up or shutting down: try again in a moment.",
  };
  const hint = (code && advice[code]) ?? "check DATABASE_URL and that the server accepts connections.";
  return new DatabaseConnectionError(`cannot connect to PostgreSQL at ${where}: ${message ?? code ?? String(error)}; ${hint}`, {
    cause: error,
  });
}
