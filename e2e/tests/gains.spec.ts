// Gains, as an admin meets them: enrol this machine, switch the read cache on for a directory of
// files this test creates (half its pages held out as the control group), read those files on
// this machine (some cold from storage, most again from memory), and the Gains pages show
// measured hits as a description, the storage and memory read latencies, and the storage reads
// and time the cache caused to be saved, with their interval, each with its basis. Needs eBPF
// (run as root), as hits and the control group come from the agent's page-cache program. The same policy
// preallocates a growing log, which then goes idle: the server page's preallocation panel shows
// what was reserved and, once the agent trims the idle file's reservation, what was given back.
import { expect, test, type Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";

const agent = new InstalledAgent();
// On the root file system, not a tmpfs, so a read that misses the page cache goes to storage.
const dataDir = mkdtempSync(join(tmpdir(), "spindle-gains-e2e-"));
const files = Array.from({ length: 8 }, (_, i) => join(dataDir, `table-${i}.dat`));
const logDir = join(dataDir, "wal");
const logFile = join(logDir, "journey.log");
let reader: NodeJS.Timeout | undefined;

test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  if (reader) clearInterval(reader);
  await agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Drops one file from the page cache (GNU dd's nocache), so its next read goes to storage. */
function evict(file: string): void {
  execFileSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"]);
}

/** One round of this test's workload: the first file read cold, every file read (mostly from memory). */
function readRound(round: number): void {
  evict(files[round % files.length]!);
  for (const file of files) readFileSync(file);
}

async function savePolicy(page: Page, name: string, document: object): Promise<void> {
  await page.goto("/policies");
  await page.getByTestId("create-policy").click();
  await page.getByTestId("create-policy-form").getByLabel("Name").fill(name);
  await page.getByTestId("create-policy-submit").click();
  await expect(page.getByTestId("policy-name")).toHaveText(name);
  await page.getByTestId("view-json").click();
  await page.getByLabel("Policy JSON").fill(JSON.stringify(document, null, 2));
  await page.getByLabel("What changed and why").fill("read cache on for the gains journey's files");
  await page.getByTestId("save-version").click();
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toBeVisible();
  await page.getByTestId("assign-form").getByLabel("Assign to").selectOption("organization");
  await page.getByTestId("assign-submit").click();
  await expect(page.getByTestId("assignment-row")).toHaveCount(1);
}

test("the read cache's measured gains reach the Gains pages", async ({ page }, testInfo) => {
  // The preallocation panel waits for the log's reservation to be trimmed a minute after it idles.
  test.setTimeout(420_000);
  for (const file of files) writeFileSync(file, randomBytes(16 * 1024 * 1024));
  await signUp(page, newAccount("Gains"));
  await enrolThisMachine(page, agent);
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));

  // The log's directory exists before the policy arrives, as a database's WAL directory does: the
  // agent watches the directories under a rule's prefix that exist when it applies the policy.
  mkdirSync(logDir, { recursive: true });
  await savePolicy(page, "Cache the journey's files", {
    schemaVersion: 1,
    // Half held out: 8 files of 16 MiB are 64 groups of 2 MiB, and at 50 % the control's share of
    // the reads cannot land far from its share by design. Sampling every 2 s: enough intervals soon.
    readCache: { enabled: true, include: [`${dataDir}/*.dat`], budgetBytes: 256 * 1024 * 1024, holdoutPercent: 50 },
    writeOptimization: { enabled: true, preallocation: [{ pattern: `${logDir}/*.log`, chunkBytes: 1024 * 1024 }] },
    telemetry: { ebpf: "on", intervalSeconds: 2 },
  });

  await page.goto("/servers");
  await page.locator(`[data-testid="fleet-row"][data-hostname="${hostname()}"]`).getByRole("link").first().click();
  await expect(page.getByTestId("policy-status")).toHaveAttribute("data-status", "applied", { timeout: 60_000 });

  // A log that grows for a few seconds, then stays idle: the agent reserves space ahead of it and,
  // a minute after its last write, gives back what it did not use.
  for (let i = 0; i < 48; i++) {
    appendFileSync(logFile, Buffer.alloc(64 * 1024, "w"));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // Keep reading while the pages refresh, as a database would.
  let round = 0;
  readRound(round++);
  reader = setInterval(() => readRound(round++), 500);

  const gains = page.getByTestId("server-gains");
  await expect(gains).toBeVisible();
  for (const figure of ["gains-hits", "gains-storage-latency", "gains-memory-latency", "gains-caused-reads", "gains-time-saved"]) {
    await expect(gains.getByTestId(figure)).toHaveAttribute("data-status", "measured", { timeout: 120_000 });
  }
  await expect(gains.getByTestId("gains-hits-basis")).toContainText("eBPF per-file page-cache counters");
  await expect(gains.getByTestId("gains-hits-detail")).toHaveText("what the page cache served, not a saving");
  await expect(gains.getByTestId("gains-caused-reads-value")).toHaveText(/^-?[\d,.]+ reads$/);
  await expect(gains.getByTestId("gains-caused-reads-detail")).toContainText(
    /^95 % interval: -?[\d,.]+ reads to -?[\d,.]+ reads; control missed/,
  );
  // The agent counts both groups per hash bucket of page groups, so the interval comes from them
  // (64 groups fill nearly all 16 buckets) and sees the control draw as well as time.
  await expect(gains.getByTestId("gains-caused-reads-detail")).toContainText(/\(from 1[0-6] hash buckets of page groups\)$/);
  await expect(gains.getByTestId("gains-caused-reads-basis")).toContainText("control group (left unmanaged)");
  await expect(gains.getByTestId("gains-storage-latency-basis")).toContainText(
    /eBPF latency histogram \(disk_latency\) on .+, [\d,]+ reads/,
  );
  await expect(gains.getByTestId("gains-memory-latency-basis")).toContainText(
    /timed 4 KiB page-cache reads .*[\d,]+ timed reads, counted once per interval/,
  );
  await expect(gains.getByTestId("gains-time-saved-value")).toHaveText(/^-?[\d.]+ (µs|ms|s|min|h)$/);
  await expect(gains.getByTestId("ledger-storageTimeSaved")).toHaveAttribute("data-status", "measured");
  await expect(gains.getByTestId("ledger-storageIosSaved")).toHaveAttribute("data-kind", "caused");
  await expect(gains.getByTestId("ledger-bytesFromMemory")).toHaveAttribute("data-kind", "description");
  await expect(async () => {
    expect(
      Number(await gains.locator('[data-testid="chart"][data-chart="gains-reads"]').getAttribute("data-points")),
    ).toBeGreaterThanOrEqual(1);
  }).toPass({ timeout: 60_000 });
  await expect(gains.getByTestId("verdict")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("server-gains.png"), fullPage: true });

  // Preallocation, described (not credited): reserved while the log grew, given back once it idled.
  const preallocation = page.getByTestId("panel-preallocation");
  await expect(preallocation).toHaveAttribute("data-state", "data", { timeout: 60_000 });
  await expect(preallocation.getByTestId("panel-preallocation-totals")).toContainText(/Reserved: [\d.]+ (KB|MB|GB)/);
  await expect(preallocation.getByTestId("panel-preallocation-totals")).toContainText(/Given back: [\d.]+ (KB|MB|GB)/, {
    timeout: 180_000,
  });
  await expect(preallocation.getByTestId("panel-preallocation-totals")).toContainText(/Reserved and not given back: -?[\d.]+ (B|KB|MB|GB)/);
  await expect(preallocation).toContainText("not a saving");
  await expect(async () => {
    expect(
      Number(await preallocation.locator('[data-testid="chart"][data-chart="preallocation"]').getAttribute("data-points")),
    ).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 60_000 });
  await preallocation.screenshot({ path: testInfo.outputPath("preallocation-panel.png") });

  // The ledger exports as CSV with the same measured line.
  const csv = await page.request.get((await gains.getByTestId("export-ledger").getAttribute("href")) ?? "");
  expect(csv.headers()["content-type"]).toContain("text/csv");
  expect(await csv.text()).toMatch(
    /\r\nserver,[^,]+,read-cache,Storage read time saved \(caused\),s,-?[\d.e-]+,measured,.*,caused,-?[\d.e-]+,-?[\d.e-]+,0\.95,/,
  );

  await page.getByRole("link", { name: "Gains", exact: true }).click();
  await expect(page).toHaveURL(/\/gains$/);
  await page.getByTestId("gains-range-1h").click();
  const row = page.locator(`[data-testid="gains-server-row"][data-server="${hostname()}"]`);
  await expect(row).toBeVisible();
  await expect(row.locator('td[data-status="measured"]').first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("fleet-ledger").getByTestId("ledger-storageTimeSaved")).toHaveAttribute("data-status", "measured", {
    timeout: 60_000,
  });
  await page.screenshot({ path: testInfo.outputPath("fleet-gains.png"), fullPage: true });
});
