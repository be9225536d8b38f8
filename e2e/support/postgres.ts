// A PostgreSQL cluster of the test's own, for tests that stop and restart the database under a
// running system. Uses Debian's server binaries; as root, runs them as the postgres user.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { repoRoot } from "./gateway";

function binDir(): string {
  for (const version of readdirSync("/usr/lib/postgresql").sort().reverse()) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, "pg_ctl"))) return dir;
  }
  throw new Error("PostgreSQL server binaries not found: run bash scripts/setup.sh --for-tests");
}

function asOwner(command: string): string {
  const args = userInfo().uid === 0 ? ["postgres", "-s", "/bin/sh", "-c", command] : ["-c", command];
  return execFileSync(userInfo().uid === 0 ? "su" : "sh", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export class PostgresCluster {
  readonly dir = mkdtempSync(join(tmpdir(), "spindle-it-pg-"));
  private readonly bin = binDir();

  constructor(readonly port: number) {
    if (userInfo().uid === 0) execFileSync("chown", ["postgres", this.dir]);
    asOwner(`${this.bin}/initdb -D ${this.dir}/data --auth=trust -U postgres -E UTF8 >/dev/null`);
  }

  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  start(): void {
    try {
      asOwner(
        `${this.bin}/pg_ctl -D ${this.dir}/data -w -l ${this.dir}/log ` +
          `-o "-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null`,
      );
    } catch (error) {
      const log = existsSync(`${this.dir}/log`) ? readFileSync(`${this.dir}/log`, "utf8") : "(no log)";
      throw new Error(`PostgreSQL on port ${this.port} did not start: ${error}\n${log}`);
    }
  }

  /** Creates database `name` and applies every migration to it; returns its URL. */
  createMigratedDatabase(name = "spindle"): string {
    execFileSync("psql", [this.url(), "-qAtc", `CREATE DATABASE ${name}`]);
    const url = this.url(name);
    execFileSync("node", ["--import", "tsx", "packages/db/src/cli.ts", "migrate"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url },
      stdio: "pipe",
    });
    return url;
  }

  /** A crash and recovery: `-m immediate` aborts every backend mid-transaction, then it starts again. */
  restartImmediately(): void {
    asOwner(`${this.bin}/pg_ctl -D ${this.dir}/data -w -m immediate -l ${this.dir}/log restart >/dev/null`);
  }

  stop(): void {
    asOwner(`${this.bin}/pg_ctl -D ${this.dir}/data -w -m fast stop >/dev/null`);
  }

  destroy(): void {
    try {
      this.stop();
    } catch {
      /* already stopped */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** One query on a connection of its own, for checks that must not hold a connection open. */
export async function queryRows<T extends pg.QueryResultRow>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
