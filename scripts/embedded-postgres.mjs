#!/usr/bin/env node
// Holds the embedded PostgreSQL for scripts/start.mjs in a process of its own, started in its own
// process group: Ctrl-C in the terminal reaches the services, not the database, which start.mjs
// stops with SIGTERM once every service has exited, so the database goes last. It also stops
// when its parent disappears (stdin closes). Prints one JSON line: {"url": "...", "dataDir": "..."}.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [dataDir, port] = process.argv.slice(2);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { startEmbeddedPostgres } = await import(join(root, "packages/db/dist/index.js"));

let pg;
try {
  pg = await startEmbeddedPostgres({ dataDir, port: Number(port) });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await pg.stop();
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdin.on("end", stop);
process.stdin.resume();
process.stdout.write(JSON.stringify({ url: pg.url, dataDir: pg.dataDir }) + "\n");
