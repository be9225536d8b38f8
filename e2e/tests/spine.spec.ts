// The spine, as a user walks it: sign up, add a server with the one-liner, run it on this
// machine, and watch the server appear in the fleet with live charts. Then a second
// organisation tries to reach that server, and a teammate joins by invitation.
import { expect, test } from "@playwright/test";
import { hostname } from "node:os";
import { newAccount, signIn, signUp } from "../support/accounts";
import { InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";
import { lastMailIndex, linkIn, waitForMail } from "../support/mail";

const owner = newAccount("Owner");
const agent = new InstalledAgent();
let serverPath = "";

test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  await agent.destroy();
});

test("sign up, enrol this machine with the one-liner, and see it live", async ({ page }, testInfo) => {
  await signUp(page, owner);
  await expect(page.getByTestId("fleet-empty")).toContainText("No servers yet");

  await page.getByTestId("add-server").first().click();
  await expect(page).toHaveURL(/\/servers\/add$/);
  await enrolThisMachine(page, agent);
  await expect(page.getByTestId("token-row")).toHaveCount(1);

  await page.goto("/servers");
  const row = page.locator(`[data-testid="fleet-row"][data-hostname="${hostname()}"]`);
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row).toContainText(/linux/i);
  await expect(row.getByTestId("server-status")).toHaveAttribute("data-status", "online", { timeout: 30_000 });
  await row.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/servers\/[0-9a-f-]{36}$/);
  serverPath = new URL(page.url()).pathname;

  await expect(page.getByTestId("server-hostname")).toHaveText(hostname());
  // The detail page refreshes itself: wait for charts that hold at least two samples.
  const iops = page.locator('[data-testid="chart"][data-chart="iops"]').first();
  await expect(async () => {
    expect(Number(await iops.getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 60_000 });
  const memory = page.locator('[data-testid="chart"][data-chart="memory"]');
  await expect(async () => {
    expect(Number(await memory.getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
  }).toPass({ timeout: 30_000 });

  for (const range of ["24h", "7d", "1h"]) {
    await page.getByTestId(`range-${range}`).click();
    await expect(async () => {
      expect(Number(await memory.getAttribute("data-points"))).toBeGreaterThanOrEqual(1);
    }).toPass({ timeout: 60_000 });
  }
  await page.screenshot({ path: testInfo.outputPath("server-detail.png"), fullPage: true });
  await page.screenshot({ path: "test-results/server-detail.png", fullPage: true });
});

test("another organisation cannot reach the server by URL or API", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, newAccount("Intruder"));
  await expect(page.getByTestId("fleet-empty")).toBeVisible();

  await page.goto(serverPath);
  await expect(page.getByTestId("not-found")).toBeVisible();
  for (const path of [`/api${serverPath}`, `/api${serverPath}/metrics?range=1h`]) {
    const response = await page.request.get(path);
    expect(response.status(), path).toBe(404);
    expect(response.headers()["content-type"]).toContain("application/problem+json");
  }
  const list = await page.request.get("/api/servers");
  expect(await list.json()).toMatchObject({ servers: [] });
  await context.close();
});

test("signed-out visitors are sent to sign in, and the owner can sign back in", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(serverPath);
  await expect(page).toHaveURL(/\/sign-in/);
  expect((await page.request.get("/api/servers")).status()).toBe(401);
  await signIn(page, owner);
  await page.getByTestId("user-menu").click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await context.close();
});

test("a teammate invited as viewer sees the fleet but cannot create enrolment tokens", async ({ browser }) => {
  const ownerContext = await browser.newContext();
  const ownerPage = await ownerContext.newPage();
  await signIn(ownerPage, owner);
  await ownerPage.goto("/settings/members");
  const viewer = newAccount("Viewer");
  const before = await lastMailIndex();
  await ownerPage.getByTestId("invite-form").getByLabel("Email").fill(viewer.email);
  await ownerPage.getByTestId("invite-form").getByLabel("Role").selectOption("viewer");
  await ownerPage.getByTestId("invite-submit").click();
  const link = (await ownerPage.getByTestId("invitation-link").first().textContent())!.trim();
  expect(link).toMatch(/\/invite\/\S+$/);

  // The invitation arrives by mail; signing up through the mailed link proves the address.
  const invitation = await waitForMail(viewer.email, "invitation", before);
  expect(invitation.subject).toContain(owner.organisation);
  const viewerContext = await browser.newContext();
  const page = await viewerContext.newPage();
  await page.goto(linkIn(invitation, /\/invite\/\S+\?proof=/));
  await page.getByLabel("Your name").fill(viewer.name);
  await page.getByLabel("Password").fill(viewer.password);
  await page.getByTestId("sign-up-submit").click();
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByTestId("org-name")).toHaveText(owner.organisation);
  await expect(page.locator(`[data-testid="fleet-row"][data-hostname="${hostname()}"]`)).toBeVisible();

  // From the console's origin the viewer's role refuses; from anywhere else the Origin check does.
  const consoleOrigin = new URL(page.url()).origin;
  const denied = await page.request.post("/api/enrollment-tokens", { data: { label: "x", expiresIn: "1h" }, headers: { origin: consoleOrigin } });
  expect(denied.status()).toBe(403);
  expect((await denied.json()).title).toBe("Forbidden");
  const crossSite = await page.request.post("/api/enrollment-tokens", { data: { label: "x", expiresIn: "1h" }, headers: { origin: "https://evil.example" } });
  expect(crossSite.status()).toBe(403);
  expect(crossSite.headers()["content-type"]).toBe("application/problem+json");
  expect((await crossSite.json()).title).toBe("Cross-origin request refused");
  const headers = (await page.request.get("/servers")).headers();
  expect(headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  await ownerContext.close();
  await viewerContext.close();
});
