// A/B proof run, as an admin uses it: enrol this machine, request a tiny run from the server
// page, watch the progress bar move, open the report and see a with/without chart per step, each
// change drawn with its interval and worded "no measurable difference" where the interval
// includes 0 (on screen, in print and in the CSV), every pass, and that another organisation
// cannot open the link. The run is the file-server mix at four loads on a 32 MiB file: from the
// second step on, the file is in the page cache with the features or without them, so "no
// measurable difference" applies there (the first step starts each pass cold, and the read
// cache's prefetch may show).
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
  const dataDir = join(agent.prefix, "proof-run-data");
  mkdirSync(dataDir, { recursive: true });
  // The server's operator allows proof runs in one directory (agent.yaml proof_runs.paths).
  await agent.stop();
  agent.allowProofRunPaths([dataDir]);
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
  await form.getByLabel("Time limit (s)").fill("60");
  await form.getByLabel("Seconds per load step").fill("1");
  await form.getByLabel("Response-time limit (ms)").fill("50");
  await form.getByLabel("Target interval (± %)").fill("100");
  await form.getByLabel("Load steps (optional)").fill("1x1, 2x2, 4x4, 8x8");
  await form.getByTestId("start-run").click();

  const run = panel.getByTestId("proof-run").first();
  await expect(run.getByTestId("run-status")).toHaveAttribute("data-status", /queued|running/);
  // The bar moves: two different fractions while the run is in progress; the phase names the target.
  const bar = run.getByRole("progressbar");
  const first = await eventually(
    "a first progress figure",
    async () => {
      const value = await bar.getAttribute("data-progress").catch(() => null);
      return value ? Number(value) : undefined;
    },
    30_000,
  );
  await eventually(
    "the bar to move",
    async () => {
      const value = await bar.getAttribute("data-progress").catch(() => null);
      return value && Number(value) > first ? true : undefined;
    },
    60_000,
  );
  await expect(run.getByTestId("run-phase")).toContainText("target ±100 % within 60 s");

  await expect(run.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 120_000 });
  expect(readdirSync(dataDir)).toEqual([]);
  await run.getByTestId("open-report").click();

  const report = page.getByTestId("proof-run-report");
  await expect(report).toBeVisible();
  await expect(report.getByTestId("run-basis")).toContainText("1 warm-up pass");
  await expect(report.getByTestId("run-target")).toContainText("±100 %, within the time limit of 60 s");
  await expect(report.getByTestId("run-stop")).toContainText("Stopped adding blocks:");
  const rows = report.getByTestId("step-row");
  await expect(rows).toHaveCount(4);
  const charts = report.getByTestId("step-chart");
  await expect(charts).toHaveCount(4);
  for (const chart of await charts.all()) {
    await expect(chart.locator("canvas")).toBeVisible();
    expect(Number(await chart.getAttribute("data-without"))).toBeGreaterThan(0);
    expect(Number(await chart.getAttribute("data-with"))).toBeGreaterThan(0);
  }

  // Every change is drawn with its interval against the line at 0, and worded by it.
  const tableStatuses: string[] = [];
  for (const row of await rows.all()) {
    const changes = row.getByTestId("change");
    await expect(changes).toHaveCount(2);
    for (const change of await changes.all()) {
      const status = (await change.getAttribute("data-status")) ?? "";
      expect(status, "a finished run with two blocks has an interval for every step").not.toBe("not-measured");
      tableStatuses.push(status);
      if (status === "no-measurable-difference") await expect(change).toContainText("no measurable difference");
    }
  }
  expect(tableStatuses.slice(2), "steps served from the page cache either way").toContain("no-measurable-difference");
  const plots = report.getByTestId("interval-plot");
  await expect(plots).toHaveCount(2);
  const plotStatuses: string[][] = [[], []];
  for (const [p, plot] of (await plots.all()).entries()) {
    const zero = Number(await plot.getAttribute("data-zero-x"));
    const plotRows = plot.getByTestId("interval-row");
    await expect(plotRows).toHaveCount(5); // four steps and all steps together
    for (const row of await plotRows.all()) {
      const status = (await row.getAttribute("data-status")) ?? "";
      const [x1, x2] = [Number(await row.getAttribute("data-x1")), Number(await row.getAttribute("data-x2"))];
      expect(x2, "an interval has width").toBeGreaterThan(x1);
      expect(status === "no-measurable-difference", "the bar crosses 0 exactly when there is no measurable difference").toBe(
        x1 <= zero && zero <= x2,
      );
      const bar = await row.locator("line").first().boundingBox();
      expect(bar && bar.width > 1, "the bar is painted").toBe(true);
      plotStatuses[p]!.push(status);
    }
  }
  // The plots draw what the table says: throughput then response time, step by step.
  expect(plotStatuses[0]!.slice(0, 4)).toEqual(tableStatuses.filter((_, i) => i % 2 === 0));
  expect(plotStatuses[1]!.slice(0, 4)).toEqual(tableStatuses.filter((_, i) => i % 2 === 1));

  await expect(report.getByTestId("saturation")).toContainText("limit of 50 ms");
  await expect(report.getByTestId("caused-reads")).toContainText("Storage reads caused by the read cache");
  await expect(report.getByTestId("read-description")).toContainText("a description, not a saving");
  const passes = report.getByTestId("pass-row");
  expect(await passes.count()).toBeGreaterThanOrEqual(9); // a warm-up and two blocks of four
  await expect(passes.first()).toHaveAttribute("data-warm-up", "true");
  await page.screenshot({ path: testInfo.outputPath("proof-run-report.png"), fullPage: true });

  // The print view keeps the intervals and their wording.
  await page.emulateMedia({ media: "print" });
  await expect(plots.first()).toBeVisible();
  await expect(report.getByTestId("step-table").getByText("no measurable difference").first()).toBeVisible();
  await page.emulateMedia({ media: "screen" });

  const csv = await page.request.get(`${new URL(page.url()).pathname.replace("/proof-runs/", "/api/proof-runs/")}/csv`);
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).trim().split("\r\n");
  expect(lines).toHaveLength(6); // header, four steps, overall
  expect(lines[0]).toMatch(
    /^step,workload,load,throughput_unit,throughput_without,throughput_with,throughput_change,throughput_change_percent,throughput_change_low_percent/,
  );
  const csvStatuses = lines.slice(1, 5).flatMap((line) => [line.split(",")[6], line.split(",")[12]]);
  expect(csvStatuses).toEqual(tableStatuses.map((s) => (s === "measured" ? "measured" : "no measurable difference")));

  // The link works inside the organisation only.
  const reportUrl = page.url();
  const outsider = await browser.newContext();
  const outsiderPage = await outsider.newPage();
  await signUp(outsiderPage, newAccount("Outsider"));
  const response = await outsiderPage.goto(reportUrl);
  expect(response?.status()).toBe(404);
  await outsider.close();
});
