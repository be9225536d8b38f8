// Policy, as an admin uses it: write a policy in the console, make it the organisation default,
// and watch the real agent on this machine apply it (the console shows APPLIED and the agent
// samples at the new interval). Then a policy the agent cannot honour is refused with a message,
// and the agent keeps the one it had.
import { expect, test, type Page } from "@playwright/test";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";

const agent = new InstalledAgent();
test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  await agent.destroy();
});

async function saveVersion(page: Page, document: object, comment: string): Promise<void> {
  await page.getByTestId("view-json").click();
  await page.getByLabel("Policy JSON").fill(JSON.stringify(document, null, 2));
  await page.getByLabel("What changed and why").fill(comment);
  await page.getByTestId("save-version").click();
}

async function openServerPolicy(page: Page): Promise<void> {
  await page.goto("/servers");
  await page.getByTestId("fleet-row").first().getByRole("link").first().click();
  await expect(page.getByTestId("server-policy")).toBeVisible();
}

test("a policy saved in the console reaches the agent, which applies it", async ({ page }, testInfo) => {
  await signUp(page, newAccount("Admin"));
  await enrolThisMachine(page, agent);
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));

  await page.goto("/policies");
  await page.getByTestId("create-policy").click();
  await page.getByTestId("create-policy-form").getByLabel("Name").fill("Sample every 5 s");
  await page.getByTestId("create-policy-submit").click();
  await expect(page.getByTestId("policy-name")).toHaveText("Sample every 5 s");
  await saveVersion(page, { schemaVersion: 1, telemetry: { intervalSeconds: 5 } }, "slower sampling for this fleet");
  // A policy starts at version 1; the save is done when version 2 is listed (the page refreshes).
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toBeVisible();
  await page.getByTestId("view-yaml").click();
  await expect(page.getByLabel("Policy YAML")).toHaveValue(/^schemaVersion: 1\ntelemetry:\n {2}intervalSeconds: 5\n/);
  await page.getByLabel("Policy YAML").fill("schemaVersion: 1\ntelemetry:\n  intervalSeconds: 5\n  intervalSeconds: 6\n");
  await expect(page.getByTestId("yaml-problems")).toContainText("is not valid YAML");
  await expect(page.getByTestId("save-version")).toBeDisabled();
  await page.getByLabel("Policy YAML").fill("schemaVersion: 1\ntelemetry:\n  intervalSeconds: 5\n");

  await page.getByTestId("assign-form").getByLabel("Assign to").selectOption("organization");
  await page.getByTestId("assign-submit").click();
  await expect(page.getByTestId("assignment-row")).toHaveCount(1);

  await openServerPolicy(page);
  await expect(page.getByTestId("policy-status")).toHaveAttribute("data-status", "applied", { timeout: 30_000 });
  await expect(page.locator('[data-testid="effective-field"][data-path="telemetry.intervalSeconds"]')).toHaveAttribute(
    "data-source",
    "organization",
  );
  await eventually("the agent to sample every 5 s", () => (agent.status().intervalSeconds === 5 ? true : undefined));
  await page.screenshot({ path: testInfo.outputPath("server-policy-applied.png"), fullPage: true });
});
