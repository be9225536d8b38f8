// Operating a fleet from the console (issue 27), as an admin does it: this machine enrolled with
// the one-liner and 52 more machines enrolled through the gateway's enrolment API with the same
// token (each with its own credential; 16 of them report their capabilities over OTLP), then:
// search and filter the fleet, keep the view in its URL, tag 10 servers in bulk, group by tag;
// assign a policy in bulk to this machine, which its real agent applies, and find the mark of
// that change on the server's charts; zoom into a chart and open the shared link in a fresh
// page; compare two servers; and the console at 390×844.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { hostname } from "node:os";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { drawnPixels, expectChartsDrawn, pixelsOfColourAt } from "../support/charts";
import { enrolThisMachine } from "../support/enrol";
import { enrolMachine, reportCapabilities, type EnrolledMachine, type MachineSpec } from "../support/fleet";

const agent = new InstalledAgent();
const owner = newAccount("Fleet");
let session: Awaited<ReturnType<BrowserContext["storageState"]>>;
let thisServerPath = "";
let fleet: EnrolledMachine[] = [];

const pad = (n: number) => String(n).padStart(2, "0");
const machines: MachineSpec[] = [
  ...Array.from({ length: 20 }, (_, i) => ({
    hostname: `web-${pad(i + 1)}`,
    osVersion: "Debian GNU/Linux 12 (bookworm)",
    kernel: "6.1.0-18-amd64",
    agentVersion: "0.1.0",
  })),
  ...Array.from({ length: 16 }, (_, i) => ({
    hostname: `db-${pad(i + 1)}`,
    osVersion: "Ubuntu 22.04.3 LTS",
    kernel: "5.15.0-91-generic",
    agentVersion: "0.2.0",
  })),
  ...Array.from({ length: 16 }, (_, i) => ({
    hostname: `cache-${pad(i + 1)}`,
    osVersion: "Rocky Linux 9.3 (Blue Onyx)",
    kernel: "5.14.0-362.8.1.el9_3.x86_64",
    agentVersion: "0.2.0",
  })),
];
// What the cache machines report: everything but the miss-ratio curves.
const cacheCapabilities = ["ebpf.block_latency", "ebpf.block_split", "ebpf.page_cache", "fiemap.fragmentation", "psi.pressure"];
// The policy journey's mark, in uplot-annotations.ts's colour for policies.
const policyColour: [number, number, number] = [0xc0, 0x26, 0xd3];

test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  await agent.destroy();
});

// Contexts this file opens itself: closed after each test, or their pages would keep polling and
// drawing live charts, in a browser that is still busy with the journeys that follow.
const opened: BrowserContext[] = [];
test.afterEach(async () => {
  for (const context of opened.splice(0)) await context.close();
});

async function signedIn(browser: Browser, viewport = { width: 1440, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ storageState: session, viewport });
  opened.push(context);
  return context.newPage();
}

const rows = (page: Page) => page.getByTestId("fleet-row");
const hostnamesOf = async (page: Page) => rows(page).evaluateAll((found) => found.map((row) => row.getAttribute("data-hostname")));

test("search and filter a fleet of 53 enrolled servers, tag 10 of them in bulk, group by tag", async ({ page }) => {
  await signUp(page, owner);
  const oneLiner = await enrolThisMachine(page, agent);
  const [, gatewayUrl, token] = /curl -fsSL (\S+)\/install\.sh.*'(spe_\S+)'/.exec(oneLiner)!;
  fleet = [];
  for (const machine of machines) fleet.push(await enrolMachine(gatewayUrl!, token!, machine));
  for (const machine of fleet.filter((m) => m.hostname.startsWith("cache-")))
    await reportCapabilities(gatewayUrl!, machine, cacheCapabilities);
  session = await page.context().storageState();

  await page.goto("/servers");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "53");
  await expect(rows(page)).toHaveCount(50);
  await expect(page.getByTestId("fleet-range")).toHaveText("1–50 of 53");
  await page.getByTestId("fleet-page-next").click();
  await expect(rows(page)).toHaveCount(3);
  await expect(page).toHaveURL(/[?&]page=2/);

  // Search, then narrow with filters; every choice lands in the URL.
  await page.getByLabel("Search").fill("web-1");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "10"); // web-10 … web-19
  await expect(page).toHaveURL(/[?&]q=web-1(&|$)/);
  await expect(page).not.toHaveURL(/page=2/);
  await page.getByLabel("Search").fill("");
  await page.getByLabel("Operating system").selectOption("Ubuntu 22.04.3 LTS");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "16");
  expect((await hostnamesOf(page)).every((h) => h!.startsWith("db-"))).toBe(true);
  await page.getByLabel("Operating system").selectOption("");
  await page.getByLabel("Kernel").selectOption("5.14.0-362.8.1.el9_3.x86_64");
  await page.getByLabel("Agent version").selectOption("0.2.0");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "16");
  await page.getByLabel("Kernel").selectOption("");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "32");
  await page.getByLabel("Missing capability").selectOption("ebpf.mrc");
  await page.getByLabel("Search").fill("cache");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "16");
  await expect(rows(page).first().getByTestId("missing-capabilities")).toBeVisible();
  // Sorted by hostname, descending, as people read numbers: cache-16 before cache-9.
  await page.getByTestId("sort-hostname").click();
  await expect(rows(page).first()).toHaveAttribute("data-hostname", "cache-16");
  await expect(rows(page).nth(7)).toHaveAttribute("data-hostname", "cache-09");

  // The view is its URL: a fresh page opens the same list.
  const shared = page.url();
  expect(new URL(shared).searchParams.get("missing")).toBe("ebpf.mrc");
  const fresh = await page.context().newPage();
  await fresh.goto(shared);
  await expect(fresh.getByTestId("fleet-total")).toHaveAttribute("data-total", "16");
  await expect(fresh.getByLabel("Missing capability")).toHaveValue("ebpf.mrc");
  await expect(fresh.getByLabel("Search")).toHaveValue("cache");
  await expect(rows(fresh).first()).toHaveAttribute("data-hostname", "cache-16");
  await fresh.close();

  // A bad link says what is wrong, in the page and in the API.
  await page.goto("/servers?status=up&colour=red");
  await expect(page.getByTestId("fleet-query-error")).toContainText("status: status is one of: online, offline, waiting");
  await expect(page.getByTestId("fleet-query-error")).toContainText("unknown parameter colour");
  const refused = await page.request.get("/api/servers?status=up");
  expect(refused.status()).toBe(400);
  expect(refused.headers()["content-type"]).toContain("application/problem+json");
  expect((await refused.json()).errors).toEqual([{ path: "status", message: "status is one of: online, offline, waiting" }]);

  // Tag ten web servers in bulk: review, confirm, and each change is audited.
  await page.goto("/servers?q=web-");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "20");
  for (let i = 1; i <= 10; i++)
    await page
      .locator(`[data-testid="fleet-row"][data-hostname="web-${pad(i)}"]`)
      .getByTestId("select-row")
      .check();
  await expect(page.getByTestId("selected-count")).toHaveText("10 servers selected");
  await page.getByTestId("bulk-tag").click();
  await page.getByTestId("bulk-dialog").getByLabel("Tag").fill("frontend");
  await page.getByTestId("bulk-review").click();
  await expect(page.getByTestId("bulk-preview")).toContainText("Tags 10 servers with frontend.");
  await page.getByTestId("bulk-confirm").click();
  await expect(page.getByTestId("bulk-result")).toContainText("Tagged 10 servers with frontend.");
  await page.getByTestId("bulk-close").click();
  await expect(page.getByTestId("bulk-bar")).toHaveCount(0);
  await page.getByLabel("Tag", { exact: true }).selectOption("frontend");
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "10");
  expect((await hostnamesOf(page)).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `web-${pad(i + 1)}`));

  // Grouped by tag: the group's counts and headline figures, caused gains said to be not measured.
  await page.goto("/servers?group=tag");
  const group = page.locator('[data-testid="fleet-group"][data-tag="frontend"]');
  await expect(group).toHaveAttribute("data-servers", "10");
  await expect(group.getByTestId("group-caused")).toHaveText("not measured");
  await expect(page.locator('[data-testid="fleet-group"][data-tag=""]')).toHaveAttribute("data-servers", "43");
  await group.getByTestId("pick-group").click();
  await expect(page).toHaveURL(/tag=frontend/);
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "10");

  await page.goto("/settings/audit");
  await expect(page.getByTestId("audit-row").filter({ hasText: "(bulk action on 10 servers)" })).toHaveCount(10);

  // The enrolled machines stop reporting: the status filter sees them go offline (waiting for it, not for a clock).
  await page.goto("/servers?status=offline&q=db-");
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "16", { timeout: 2_000 });
  }).toPass({ timeout: 90_000 });
  await page.goto(`/servers?status=online&q=${encodeURIComponent(hostname())}`);
  await expect(page.getByTestId("fleet-total")).toHaveAttribute("data-total", "1");
});

test("a policy assigned in bulk is applied by the agent and marked on the server's charts", async ({ browser }) => {
  const page = await signedIn(browser);
  await page.goto("/policies");
  await page.getByTestId("create-policy").click();
  await page.getByTestId("create-policy-form").getByLabel("Name").fill("Sample every 3 s");
  await page.getByTestId("create-policy-submit").click();
  await expect(page.getByTestId("policy-name")).toHaveText("Sample every 3 s");
  await page.getByTestId("view-json").click();
  await page.getByLabel("Policy JSON").fill(JSON.stringify({ schemaVersion: 1, telemetry: { intervalSeconds: 3 } }, null, 2));
  await page.getByLabel("What changed and why").fill("faster sampling while we watch");
  await page.getByTestId("save-version").click();
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toBeVisible();

  await page.goto(`/servers?q=${encodeURIComponent(hostname())}`);
  await rows(page).first().getByTestId("select-row").check();
  await page.getByTestId("bulk-assign").click();
  await page.getByTestId("bulk-dialog").getByLabel("Policy").selectOption({ label: "Sample every 3 s" });
  await page.getByTestId("bulk-review").click();
  await expect(page.getByTestId("bulk-preview")).toContainText("1 server will get “Sample every 3 s” as their own policy");
  await page.getByTestId("bulk-confirm").click();
  await expect(page.getByTestId("bulk-result")).toBeVisible();
  await page.getByTestId("bulk-close").click();

  await rows(page).first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/servers\/[0-9a-f-]{36}$/);
  thisServerPath = new URL(page.url()).pathname;
  await expect(page.getByTestId("policy-status")).toHaveAttribute("data-status", "applied", { timeout: 60_000 });
  await eventually("the agent to sample every 3 s", () => (agent.status().intervalSeconds === 3 ? true : undefined));

  // The mark: on the memory chart, with its details on hover, and drawn in the plot itself.
  const chart = page.locator('[data-testid="chart"][data-chart="memory"]');
  // The agent applied the schema's defaults when it first connected, then this policy: the newest mark is ours.
  const mark = chart.locator('[data-testid="annotation"][data-kind="policy.applied"]').last();
  const tooltip = chart.getByTestId("annotation-tooltip");
  await expect(async () => {
    await mark.hover();
    await expect(tooltip).toContainText("“Sample every 3 s” v2 (this server)", { timeout: 1_000 });
  }).toPass({ timeout: 40_000 });
  await expect(tooltip).toContainText("Policy applied");
  const x = Number(await mark.getAttribute("data-canvas-x"));
  expect(await pixelsOfColourAt(chart, x, policyColour)).toBeGreaterThan(20);
  // Every time chart of the page carries it, the storage panels' too.
  await expect(page.locator('[data-testid="chart"] [data-testid="annotation"][data-kind="policy.applied"]').nth(1)).toBeAttached();
});

test("zoom into a chart, and the shared link opens the same window in a fresh page", async ({ browser }) => {
  const page = await signedIn(browser);
  await page.goto(thisServerPath);
  const chart = page.locator('[data-testid="chart"][data-chart="memory"]');
  await expect(async () => expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(5)).toPass({ timeout: 60_000 });
  // The hour holds this agent's last few minutes only: a short stretch of line, drawn.
  await expect(async () => expect(await drawnPixels(chart)).toBeGreaterThan(50)).toPass({ timeout: 30_000 });
  const before = [Number(await chart.getAttribute("data-window-from")), Number(await chart.getAttribute("data-window-to"))];

  // Drag across the last 4 % of the hour (the last minutes, where this agent's samples are), in
  // view: the mouse works in the viewport's coordinates.
  await chart.locator(".u-over").scrollIntoViewIfNeeded();
  const plot = (await chart.locator(".u-over").boundingBox())!;
  await page.mouse.move(plot.x + plot.width * 0.96, plot.y + plot.height / 2);
  await page.mouse.down();
  await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2, { steps: 12 });
  await page.mouse.up();
  await expect(page).toHaveURL(/[?&]from=.*&to=/);
  const url = new URL(page.url());
  const from = Date.parse(url.searchParams.get("from")!) / 1000;
  const to = Date.parse(url.searchParams.get("to")!) / 1000;
  expect(from).toBeGreaterThan(before[0]!);
  expect(to - from).toBeLessThan((before[1]! - before[0]!) / 2);
  await expect(chart).toHaveAttribute("data-window-from", String(from));
  await expect(chart).toHaveAttribute("data-window-to", String(to));
  await expect(page.getByTestId("custom-window")).toBeVisible();
  // Zoomed in, the same minutes span most of the plot.
  await expect(async () => expect(await drawnPixels(chart)).toBeGreaterThan(1_000)).toPass({ timeout: 30_000 });

  const fresh = await signedIn(browser);
  await fresh.goto(url.toString());
  const freshChart = fresh.locator('[data-testid="chart"][data-chart="memory"]');
  await expect(freshChart).toHaveAttribute("data-window-from", String(from));
  await expect(freshChart).toHaveAttribute("data-window-to", String(to));
  await expect(fresh.getByTestId("custom-from")).toHaveValue(await page.getByTestId("custom-from").inputValue());
  await expect(async () => expect(await drawnPixels(freshChart)).toBeGreaterThan(1_000)).toPass({ timeout: 30_000 });
  await fresh.getByTestId("back-to-live").click();
  await expect(fresh).toHaveURL(new RegExp(`${thisServerPath}$`));

  // A custom range typed in: a bad one is refused with the reason, nothing asked for.
  await page.getByTestId("custom-from").fill("2025-06-01T10:00:00");
  await page.getByTestId("custom-to").fill("2025-06-01T09:00:00");
  await page.getByTestId("custom-apply").click();
  await expect(page.getByTestId("window-problem")).toHaveText("The end must be after the start.");
  const refused = await page.request.get(`/api${thisServerPath}/metrics?from=2025-06-01T10:00:00Z&to=2025-06-01T09:00:00Z`);
  expect(refused.status()).toBe(400);
  expect((await refused.json()).errors).toEqual([{ path: "from", message: "from must be before to" }]);
});

test("compare two servers on one chart", async ({ browser }) => {
  const page = await signedIn(browser);
  await page.goto(`/servers?q=${encodeURIComponent(hostname())}`);
  const thisServerId = await rows(page).first().getAttribute("data-server-id");
  const other = fleet.find((m) => m.hostname === "db-01")!;
  await page.goto(`/servers/compare?servers=${thisServerId},${other.serverId}&metric=memoryAvailable`);
  const chart = page.locator('[data-testid="chart"][data-chart="compare"]');
  await expect(page.getByTestId("compare-server")).toHaveCount(2);
  // The lines grow as each server's minutes arrive (the page draws what it had when it loaded):
  // reload until they are more than a few pixels long.
  await expect(async () => {
    await page.reload();
    await expect(async () => expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(3)).toPass({ timeout: 15_000 });
    expect(await drawnPixels(chart)).toBeGreaterThan(20);
  }).toPass({ timeout: 120_000, intervals: [5_000] });
  await expect(page.locator('[data-testid="compare-server"]').nth(1)).toContainText("not measured in this window");
  await page.getByLabel("Metric").selectOption("readIops");
  await expect(page).toHaveURL(/metric=readIops/);
  await page.goto(`/servers/compare?servers=${thisServerId}`);
  await expect(page.getByTestId("compare-error")).toContainText("2 to 4 different server ids");
});

test("at 390×844 the navigation collapses and the tables scroll inside the page", async ({ browser }) => {
  const page = await signedIn(browser, { width: 390, height: 844 });
  await page.goto("/servers");
  await expect(page.getByTestId("main-nav")).toBeHidden();
  await expect(page.getByTestId("nav-toggle")).toBeVisible();
  await expect(page.getByTestId("mobile-nav")).toHaveCount(0);
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(await overflow()).toBe(0);
  const table = page.getByTestId("fleet-table");
  const scroller = await table.evaluate((element) => ({
    scroll: element.parentElement!.scrollWidth,
    client: element.parentElement!.clientWidth,
  }));
  expect(scroller.scroll).toBeGreaterThan(scroller.client);
  await expect(page.getByLabel("Search")).toBeInViewport();
  // The filters fold away behind one button on a phone.
  await expect(page.getByLabel("Status")).toBeHidden();
  await page.getByTestId("toggle-filters").click();
  await page.getByLabel("Status").selectOption("online");
  await expect(page.getByTestId("toggle-filters")).toHaveText("Filters (1)");
  await expect(rows(page)).toHaveCount(1);
  expect(await overflow()).toBe(0);

  await page.getByTestId("nav-toggle").click();
  await expect(page.getByTestId("mobile-nav")).toBeVisible();
  await page.getByTestId("mobile-nav").getByRole("link", { name: "Alerts" }).click();
  await expect(page).toHaveURL(/\/alerts$/);
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();
  await expect(page.getByTestId("mobile-nav")).toHaveCount(0);
  expect(await overflow()).toBe(0);

  await page.goto(thisServerPath);
  const chart = page.locator('[data-testid="chart"][data-chart="memory"]');
  await expect(async () => expect(Number(await chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(3)).toPass({ timeout: 30_000 });
  expect((await chart.boundingBox())!.width).toBeLessThanOrEqual(390);
  // Drawn at this width: a few minutes on an hour's axis is a short stretch of line.
  await expectChartsDrawn(page, { scope: chart });
  expect(await overflow()).toBe(0);
  await page.screenshot({ path: test.info().outputPath("server-390.png"), fullPage: true });
});
