// One PostgreSQL cluster run from the embedded binaries: initdb once, then the server as a child
// process, stopped with SIGINT (PostgreSQL's fast shutdown: sessions are closed, every committed
// transaction is on disk).
import { execSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PostgresBinaries } from "./binaries.js";
import type { Account } from "./run-as.js";

export interface ClusterOptions {
  binaries: PostgresBinaries;
  dataDir: string;
  port: number;
  password: string;
  /** The account the server runs as; null: this process's own. */
  account: Account | null;
  /** A directory `account` can read, for initdb's password file (removed right after). */
  scratchDir?: string;
  onLog: (line: string) => void;
}

/**
 * initdb's messages are matched in English, so LC_MESSAGES is pinned to a locale the host has
 * (initdb fails on one it lacks).
 */
function messagesLocale(): string {
  try {
    const available = new Set(
      execSync("locale -a", { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
    for (const candidate of ["C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8"]) if (available.has(candidate)) return candidate;
  } catch {
    // no `locale`: the C locale is always there
  }
  return "C";
}

function childOptions(options: ClusterOptions) {
  const ids = options.account ? { uid: options.account.uid, gid: options.account.gid } : {};
  return { ...ids, cwd: "/", env: { ...process.env, LC_MESSAGES: messagesLocale() } };
}

function forward(child: ChildProcess, onLog: (line: string) => void, onLine?: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let pending = "";
    stream?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines.filter(Boolean)) {
        onLog(line);
        onLine?.(line);
      }
    });
  }
}

/** Creates the cluster in an empty (or missing) data directory. */
export async function initCluster(options: ClusterOptions): Promise<void> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  if (options.account) await chown(options.dataDir, options.account.uid, options.account.gid);
  const scratch = options.scratchDir ?? tmpdir();
  const passwordFile = join(scratch, `pg-password-${randomBytes(6).toString("hex")}`);
  await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (options.account) await chown(passwordFile, options.account.uid, options.account.gid);
  try {
    const child = spawn(
      options.binaries.initdb,
      [`--pgdata=${options.dataDir}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${passwordFile}`, "--encoding=UTF8"],
      { ...childOptions(options), stdio: ["ignore", "pipe", "pipe"] },
    );
    forward(child, options.onLog);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
    if (code !== 0) throw new Error(`initdb exited with ${code}`);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

export interface RunningCluster {
  /** Fast shutdown; resolves once the server has exited. */
  stop(): Promise<void>;
  readonly exited: Promise<void>;
}

/** Starts the server and resolves once it accepts connections. */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const child = spawn(
    options.binaries.postgres,
    [
      "-D",
      options.dataDir,
      "-p",
      String(options.port),
      // Loopback only, and no Unix socket, so several clusters never collide in /tmp.
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
    ],
    { ...childOptions(options), stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    forward(child, options.onLog, (line) => {
      if (line.includes("database system is ready to accept connections")) resolve();
    });
    void exited.then(() => reject(new Error(`the server exited during start-up (code ${child.exitCode ?? child.signalCode})`)));
  });
  return {
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await exited;
    },
  };
}
