// Alerts, as an admin meets them: enrol this machine, see the default rules the worker gives the
// organisation, add a signed webhook channel pointing at a receiver this test runs (send test:
// delivered, signature verified), write a custom rule on write IOPS that the test's own disk
// writes cross, see its 7-day preview before saving, watch the real worker take it pending →
// firing on the Alerts page and the receiver get the firing, follow the link to the server's
// charts around the event, acknowledge it with a note, and silence it.
import { expect, test, type Page } from "@playwright/test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";

const agent = new InstalledAgent();
// On the root file system, not a tmpfs, so each fsync is a write the block device completes.
const dataDir = mkdtempSync(join(tmpdir(), "spindle-alerts-e2e-"));
let writer: NodeJS.Timeout | undefined;

/** What a webhook receiver gets: every request, kept with its headers and raw body. */
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(204).end();
  });
});

/** Standard Webhooks, checked independently of @spindle/notify: HMAC-SHA256 of id.timestamp.body. */
function signedBy(secret: string, request: { headers: IncomingHttpHeaders; body: string }): boolean {
  const id = String(request.headers["webhook-id"]);
  const timestamp = String(request.headers["webhook-timestamp"]);
  const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
    .update(`${id}.${timestamp}.${request.body}`)
    .digest();
  return String(request.headers["webhook-signature"])
    .split(" ")
    .some((entry) => {
      const [version, value] = entry.split(",");
      const actual = Buffer.from(value ?? "", "base64");
      return version === "v1" && actual.length === expected.length && timingSafeEqual(actual, expected);
    });
}

test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  receiver.close();
  if (writer) clearInterval(writer);
  await agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Real writes, synced, a few times a second: write IOPS above 0 on the device holding /tmp. */
function writeAndSync(round: number): void {
  const fd = openSync(join(dataDir, `log-${round % 4}`), "a");
  try {
    writeSync(fd, Buffer.alloc(64 * 1024, round % 256));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Server-rendered lists show what the worker has written once the page is loaded again. */
async function reloadUntil(page: Page, check: () => Promise<void>, timeout: number): Promise<void> {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout, intervals: [2_000, 5_000] });
}

test("a custom rule fires on this machine's writes, is previewed, followed to the chart and silenced", async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  let round = 0;
  writer = setInterval(() => writeAndSync(round++), 250);

  await signUp(page, newAccount("Alerts"));
  await enrolThisMachine(page, agent);
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));

  // The worker seeds the default rules on its first evaluation of the organisation (every 30 s).
  await page.getByRole("link", { name: "Alerts", exact: true }).click();
  await expect(page).toHaveURL(/\/alerts$/);
  await page.getByTestId("alerts-tab-rules").click();
  await expect(page).toHaveURL(/\/alerts\/rules$/); // the tab navigates client-side: reload only once it has
  await reloadUntil(
    page,
    async () => {
      await expect(page.locator('[data-testid="rule-row"][data-kind="default"]')).not.toHaveCount(0);
    },
    120_000,
  );
  await expect(page.locator('[data-testid="rule-row"][data-name="Agent offline"]')).toHaveAttribute("data-enabled", "true");

  // A signed webhook to this test's receiver, critical and warning alerts from every server.
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/spindle`;
  await page.getByTestId("alerts-tab-channels").click();
  await expect(page).toHaveURL(/\/alerts\/channels$/);
  await expect(page.getByTestId("channels-empty")).toBeVisible();
  await page.getByTestId("create-channel").click();
  const channelForm = page.getByTestId("channel-form");
  await channelForm.getByLabel("Channel name").fill("Journey receiver");
  await channelForm.getByLabel("Kind").selectOption("webhook");
  await channelForm.getByLabel("Webhook URL").fill(receiverUrl);
  await page.getByTestId("save-channel").click();
  const secret = (await page.getByTestId("generated-secret").locator("code").textContent())!.trim();
  expect(secret).toMatch(/^whsec_/);
  const channel = page.locator('[data-testid="channel"][data-name="Journey receiver"]');
  await expect(channel.getByTestId("secret-hint")).toHaveText(`whsec_…${secret.slice(-4)}`);
  await channel.getByTestId("add-route").click();
  await expect(channel.getByTestId("route")).toContainText("critical, warning from every server");
  await channel.getByTestId("send-test").click();
  await expect(channel.getByTestId("test-result")).toHaveAttribute("data-status", "sent", { timeout: 60_000 });
  const test_ = received.find((r) => JSON.parse(r.body).type === "spindle.test");
  expect(test_, "the test message reached the receiver").toBeDefined();
  expect(signedBy(secret, test_!)).toBe(true);
  await page.screenshot({ path: testInfo.outputPath("channels.png"), fullPage: true });
  await page.reload();
  await expect(page.locator('[data-testid="channel"][data-name="Journey receiver"]').getByTestId("secret-hint")).toBeVisible();
  expect(await page.content()).not.toContain(secret);

  // A custom rule: write IOPS above 0 for a minute, on every server.
  await page.getByTestId("alerts-tab-rules").click();
  await expect(page).toHaveURL(/\/alerts\/rules$/);
  await page.getByTestId("create-rule").click();
  const form = page.getByTestId("rule-form");
  await form.getByLabel("Name").fill("Writes on this machine");
  await form.getByLabel("Signal").selectOption("disk.write_iops");
  await form.getByLabel("Aggregation").selectOption("avg");
  await form.getByLabel("Comparison").selectOption(">");
  await form.getByLabel("Threshold (ops/s)").fill("0");
  await form.getByLabel("Window (min)").fill("1");
  await form.getByLabel("For (min)").fill("1");
  await form.getByLabel("Resolve after (min)").fill("5");
  await form.getByLabel("Severity").selectOption("critical");
  await form.getByLabel("Note for the responder").fill("The journey's writer is running; stop it to resolve.");
  // The preview replays the rule on the stored aggregates before anything is saved.
  const preview = page.getByTestId("rule-preview");
  await expect(preview).toHaveAttribute("data-state", "ready", { timeout: 60_000 });
  await expect(preview.getByTestId("preview-firings").or(preview.getByTestId("preview-no-data"))).toBeVisible();
  await expect(preview).toContainText("completed writes / interval, from /proc/diskstats");
  await page.screenshot({ path: testInfo.outputPath("rule-editor.png"), fullPage: true });
  // A signal without a stored past says so plainly.
  await form.getByLabel("Signal").selectOption("agent.seconds_since_data");
  await expect(preview).toHaveAttribute("data-state", "not-previewable");
  await expect(preview.getByTestId("preview-not-previewable")).toContainText("not a stored time series");
  await form.getByLabel("Signal").selectOption("disk.write_iops");
  await form.getByLabel("Aggregation").selectOption("avg");
  await expect(preview).toHaveAttribute("data-state", "ready", { timeout: 60_000 });
  await page.getByTestId("save-rule").click();
  await expect(page).toHaveURL(/\/alerts\/rules$/);
  await expect(page.locator('[data-testid="rule-row"][data-name="Writes on this machine"]')).toHaveAttribute("data-kind", "custom");

  // The worker takes it pending, then firing a minute later; the Alerts page refreshes itself.
  await page.getByTestId("alerts-tab-alerts").click();
  const mine = page.locator('[data-testid="open-alert"][data-rule="Writes on this machine"]');
  await expect(mine.and(page.locator('[data-state="pending"]')).first()).toBeVisible({ timeout: 300_000 });
  await expect(mine.and(page.locator('[data-state="firing"]')).first()).toBeVisible({ timeout: 180_000 });
  // One alert per device with writes: on a machine doing other work, devices besides the one
  // holding /tmp fire too, in any order. Follow one device's alert through the list and history.
  const component = await mine.and(page.locator('[data-state="firing"]')).first().getAttribute("data-component");
  const firing = mine.and(page.locator(`[data-state="firing"][data-component="${component}"]`));
  const firingInHistory = page
    .locator(`[data-testid="history-row"][data-rule="Writes on this machine"][data-to="firing"][data-component="${component}"]`)
    .first();
  await expect(firing.getByTestId("alert-note")).toHaveText("The journey's writer is running; stop it to resolve.");
  await expect(firing.getByTestId("alert-value")).toContainText(/ops\/s \(threshold > 0 ops\/s\)/);
  await expect(firing.getByTestId("alert-basis")).toContainText("average over 1 min of 1-minute aggregates");
  await expect(firing).toHaveAttribute("data-silenced", "false");
  await expect(firingInHistory).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: testInfo.outputPath("alerts-firing.png"), fullPage: true });
  // The firing went out once through the outbox to the receiver, signed.
  await expect
    .poll(() => received.filter((r) => r.body.includes("Writes on this machine") && JSON.parse(r.body).type !== "spindle.test").length, {
      timeout: 60_000,
    })
    .toBeGreaterThanOrEqual(1);
  expect(received.filter((r) => r.body.includes("Writes on this machine")).every((r) => signedBy(secret, r))).toBe(true);

  // The fleet list counts it; the link opens the server's charts around the event.
  await page.goto("/servers");
  await expect(page.locator(`[data-testid="fleet-row"][data-hostname="${hostname()}"]`).getByTestId("firing-count")).toBeVisible({
    timeout: 30_000,
  });
  await page.goto("/alerts");
  await firing.getByTestId("alert-chart-link").click();
  await expect(page).toHaveURL(/\/servers\/[0-9a-f-]+\?range=1h&to=/);
  await expect(page.getByTestId("alert-window")).toBeVisible();
  await expect(page.getByTestId("server-alerts").getByTestId("open-alert").first()).toBeVisible();
  await expect(page.locator('[data-testid="chart"][data-chart="iops"]').first()).toBeVisible({ timeout: 60_000 });
  await page.screenshot({ path: testInfo.outputPath("server-around-alert.png") });

  // Acknowledge it: still firing, marked with who took it and the note, in the list and in history.
  await page.goto("/alerts");
  await expect(firing).toHaveAttribute("data-acknowledged", "false");
  await firing.getByTestId("acknowledge-alert").click();
  await page.getByTestId("acknowledge-form").getByLabel("Note for the others on call (optional)").fill("Journey: on it");
  await page.getByTestId("acknowledge-submit").click();
  await expect(firing).toHaveAttribute("data-acknowledged", "true");
  await expect(firing.getByTestId("acknowledged-mark")).toContainText("Journey: on it");
  await expect(firing.getByTestId("acknowledge-alert")).toHaveCount(0);
  await expect(firingInHistory.getByTestId("history-acknowledged")).toContainText("Journey: on it", { timeout: 30_000 });

  // Silence it for the rule on this server: still firing, marked silenced, and listed as active.
  await firing.getByTestId("silence-alert").click();
  const silence = page.getByTestId("silence-form");
  await expect(silence.getByLabel("Applies to")).toHaveValue("server");
  await silence.getByLabel("Why").fill("Journey: the writer is expected");
  await silence.getByTestId("silence-submit").click();
  await expect(firing).toHaveAttribute("data-silenced", "true");
  await expect(firing.getByTestId("silenced-mark")).toContainText("Journey: the writer is expected");
  await page.getByTestId("alerts-tab-silences").click();
  await expect(page.locator('[data-testid="silence-row"][data-status="active"]')).toContainText("Writes on this machine");
  await page.screenshot({ path: testInfo.outputPath("alerts-silenced.png"), fullPage: true });

  // Every change is in the audit log.
  await page.goto("/settings/audit");
  await expect(page.locator('[data-testid="audit-row"][data-action="alert_rule.created"]')).toBeVisible();
  await expect(page.locator('[data-testid="audit-row"][data-action="alert_silence.created"]')).toBeVisible();
  await expect(page.locator('[data-testid="audit-row"][data-action="alert.acknowledged"]')).toBeVisible();
  await expect(page.locator('[data-testid="audit-row"][data-action="notification_channel.created"]')).toBeVisible();
});
