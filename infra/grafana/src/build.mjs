// Writes ../dashboards/*.json from the definitions in this folder:
//   node infra/grafana/src/build.mjs
// e2e/integration/grafana-dashboards.test.ts fails when the committed JSON differs.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { acceleration, alerts } from "./gains.mjs";
import { database, fragmentation, pageCache, pressure } from "./host.mjs";
import { latency, serverIo } from "./io.mjs";

export const dashboards = {
  "server-io.json": serverIo,
  "latency.json": latency,
  "page-cache.json": pageCache,
  "fragmentation.json": fragmentation,
  "database.json": database,
  "pressure.json": pressure,
  "acceleration.json": acceleration,
  "alerts.json": alerts,
};

export const render = (dashboard) => `${JSON.stringify(dashboard, null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, dashboard] of Object.entries(dashboards)) {
    writeFileSync(new URL(`../dashboards/${file}`, import.meta.url), render(dashboard));
  }
}
