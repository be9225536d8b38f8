// Journeys run against the real product started by scripts/start.mjs (gateway, worker, console)
// on a fresh copy of the migrated test database, in Debian's Chromium.
import { defineConfig } from "@playwright/test";
import { mailboxUrl } from "./support/mail";
import { e2eStack } from "./support/stack";

export default defineConfig({
  testDir: "./tests",
  timeout: 180_000,
  expect: { timeout: 30_000 },
  // One spec file at a time by default: on two cores CPU, not waiting, bounds `npm test`, and two
  // journeys at a time beside the workspace tests made neither faster (docs/benchmarks/ci-time.md).
  // Journeys may still run two at a time (SPINDLE_E2E_WORKERS=2): each signs up its own
  // organisation and runs its agents in private roots (support/agent.ts). Tests within a file
  // stay in order.
  fullyParallel: false,
  workers: Number(process.env.SPINDLE_E2E_WORKERS ?? 1),
  retries: 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  outputDir: "test-results",
  use: {
    baseURL: e2eStack.consoleUrl,
    screenshot: "only-on-failure",
    // A failed journey keeps its trace (DOM snapshots, network, console); no screencast, whose
    // frames Chromium encodes all through every journey, passed ones included, on CI's two cores.
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: true, sources: true },
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: [
    {
      // The real SMTP server every journey reads the console's mail from (support/mail-sink.ts).
      command: "node --import tsx support/mail-sink.ts",
      url: `${mailboxUrl()}/healthz`,
      timeout: 30_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
    {
      command: "node ../scripts/start.mjs --no-build",
      // The console starts last and slowest (the gateway answers within a second of starting):
      // ready when it answers, so the first journey does not meet a refused connection.
      url: `${e2eStack.consoleUrl}/api/healthz`,
      timeout: 180_000,
      reuseExistingServer: false,
      stdout: "pipe",
      env: e2eStack.env,
    },
  ],
});
