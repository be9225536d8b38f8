// A/B proof run, as an admin uses it: enrol this machine, request a tiny run from the server
// page, watch the progress bar move, open the report and see a with/without chart per step, the
// CSV, and that another organisation cannot open the link.
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";

const agent = new InstalledAgent();
test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  await agent.destroy();
});

test("an A/B proof run started in the console reports with and without per step", async ({ page, browser }, testInfo) => {
  await signUp(page, newAccount("Admin"));
  await enrolThisMachine(page, agent);
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));
  const dataDir = join(agent.prefix, "bench-data");
  mkdirSync(dataDir, { recursive: true });
  // The server's operator allows proof runs in one directory (agent.yaml bench.paths).
  await agent.stop();
  agent.allowBenchPaths([dataDir]);
  agent.start();

  await page.goto("/servers");
  await page.getByTestId("fleet-row").first().getByRole("link").first().click();
  const panel = page.getByTestId("proof-runs");
  await expect(panel).toBeVisible();
  // The agent offers its profiles when it connects; the server page reads them on load.
  await expect(async () => {
    await page.reload();
    await expect(panel.getByTestId("proof-run-form")).toBeVisible({ timeout: 2000 });
    await expect(panel.getByLabel("Data directory")).toHaveValue(dataDir, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  const form = panel.getByTestId("proof-run-form");
  await form.getByLabel("Profile").selectOption("fileserver");
  await form.getByLabel("Data directory").selectOption(dataDir);
  await form.getByLabel("Size limit (MiB)").fill("32");
  await form.getByLabel("Time limit (s)").fill("120");
  await form.getByLabel("Seconds per load step").fill("2");
  await form.getByLabel("Response-time limit (ms)").fill("50");
  await form.getByLabel("Load steps (optional)").fill("1x1, 2x2");
  await form.getByTestId("start-run").click();

  const run = panel.getByTestId("proof-run").first();
  await expect(run.getByTestId("run-status")).toHaveAttribute("data-status", /queued|running/);
  // The bar moves: two different fractions while the run is in progress.
  const bar = run.getByRole("progressbar");
  const first = await eventually("a first progress figure", async () => {
    const value = await bar.getAttribute("data-progress").catch(() => null);
    return value ? Number(value) : undefined;
  }, 30_000);
  await eventually("the bar to move", async () => {
    const value = await bar.getAttribute("data-progress").catch(() => null);
    return value && Number(value) > first ? true : undefined;
  }, 60_000);

  await expect(run.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 90_000 });
  expect(readdirSync(dataDir)).toEqual([]);
  await run.getByTestId("open-report").click();

  const report = page.getByTestId("bench-report");
  await expect(report).toBeVisible();
  await expect(report.getByTestId("step-row")).toHaveCount(2);
  const charts = report.getByTestId("step-chart");
  await expect(charts).toHaveCount(2);
  for (const chart of await charts.all()) {
    await expect(chart.locator("canvas")).toBeVisible();
    expect(Number(await chart.getAttribute("data-without"))).toBeGreaterThan(0);
    expect(Number(await chart.getAttribute("data-with"))).toBeGreaterThan(0);
  }
  await expect(report.getByTestId("saturation")).toContainText("limit of 50 ms");
  await expect(report.getByTestId("read-placement")).toContainText("Basis:");
  await page.screenshot({ path: testInfo.outputPath("proof-run-report.png"), fullPage: true });

  const csv = await page.request.get(`${new URL(page.url()).pathname.replace("/proof-runs/", "/api/bench-runs/")}/csv`);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\r\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^step,workload,load,throughput_unit,throughput_without,throughput_with/);

  // The link works inside the organisation only.
  const reportUrl = page.url();
  const outsider = await browser.newContext();
  const outsiderPage = await outsider.newPage();
  await signUp(outsiderPage, newAccount("Outsider"));
  const response = await outsiderPage.goto(reportUrl);
  expect(response?.status()).toBe(404);
  await outsider.close();
});
