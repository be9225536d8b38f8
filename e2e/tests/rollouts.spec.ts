// Rollouts, as an admin meets them: a policy change saved as a rollout from the editor, followed
// on its page through the canary's confirmation and guard window (ended early by the test through
// the database, never by a setting: the product's minimum window is 5 minutes), held for want of
// servers to compare with, passed by an override with a reason, completed with a notice; then a
// change the agent refuses, rolled back automatically with the guard's reason on the page, the
// agent confirming its previous policy, a notice and the default alert firing. The real agent on
// this machine, with its fragmentation scanner off so the second change is refused for real.
import { expect, test, type Page } from "@playwright/test";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";
import pg from "pg";
import { e2eStack } from "../support/stack";

const agent = new InstalledAgent();

/** One query on a connection of its own (support/postgres.ts is not loadable by Playwright's transform). */
async function queryRows<T extends pg.QueryResultRow>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
test.afterAll(async () => {
  await agent.destroy();
});

async function saveVersion(page: Page, document: object, comment: string): Promise<void> {
  await page.getByTestId("view-json").click();
  await page.getByLabel("Policy JSON").fill(JSON.stringify(document, null, 2));
  await page.getByLabel("What changed and why").fill(comment);
}

/** Ends the watched canary's guard window 20 s after its server applied: time driven through the database. */
async function endGuardWindow(rolloutId: string): Promise<void> {
  await eventually(
    "the canary in its guard window",
    async () => {
      const rows = await queryRows(
        e2eStack.databaseUrl,
        "UPDATE rollout_waves SET guard_ends_at = applied_at + interval '20 seconds' WHERE rollout_id = $1 AND wave = 0 AND state = 'watching' RETURNING wave",
        [rolloutId],
      );
      return rows.length === 1 || undefined;
    },
    90_000,
  );
}

test("a change rolled out in waves, watched, overridden and completed; a refused one rolled back with the guard's reason", async ({
  page,
}, testInfo) => {
  test.setTimeout(420_000);
  await signUp(page, newAccount("Rollouts"));
  // Fragmentation scanner off (the second change is refused for real); block latency off too: on this
  // shared machine other sessions' I/O moves the disk's p99 within a 20 s window, and the p99 guard
  // (tested with real agents in integration/rollouts.test.ts and on measured rows in the worker's
  // tests) would then roll back a change that did nothing.
  await enrolThisMachine(page, agent, 2, (installed) => installed.disableCollectors(["fragmentation", "block_latency"]));
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));

  // A policy for every server, set up at once: "Apply now" must be confirmed.
  await page.goto("/policies");
  await page.getByTestId("create-policy").click();
  await page.getByTestId("create-policy-form").getByLabel("Name").fill("Sampling");
  await page.getByTestId("create-policy-submit").click();
  await saveVersion(page, { schemaVersion: 1, telemetry: { intervalSeconds: 2 } }, "sample every 2 s");
  await page.getByTestId("save-version").click();
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toBeVisible();
  await page.getByTestId("assign-form").getByLabel("Assign to").selectOption("organization");
  const assignChoice = page.getByTestId("assign-form").getByTestId("delivery-choice");
  await expect(assignChoice).toHaveAttribute("data-mode", "rollout");
  await assignChoice.getByTestId("delivery-now").check();
  await expect(page.getByTestId("assign-submit")).toBeDisabled();
  await assignChoice.getByTestId("confirm-apply-now").check();
  await page.getByTestId("assign-submit").click();
  await expect(page.getByTestId("assignment-row")).toHaveCount(1);

  // The next version goes out as a rollout (the organisation's default), its plan set in the save bar.
  await saveVersion(page, { schemaVersion: 1, telemetry: { intervalSeconds: 3 } }, "sample every 3 s");
  const choice = page.getByTestId("save-bar").getByTestId("delivery-choice");
  await expect(choice).toHaveAttribute("data-mode", "rollout");
  await choice.getByLabel(/Guard window/).fill("4");
  await expect(choice.getByTestId("delivery-problem")).toContainText("A guard window is at least 5 minutes.");
  await expect(page.getByTestId("save-version")).toBeDisabled();
  await choice.getByLabel(/Guard window/).fill("5");
  await page.getByTestId("save-version").click();
  const inProgress = page.getByTestId("rollout-in-progress");
  await expect(inProgress).toContainText("Policy “Sampling” version 3");
  await inProgress.click();
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/);
  const rolloutId = page.url().split("/").at(-1)!;

  // Watch it progress: the canary is released and confirmed, then watched.
  const canary = page.locator('[data-testid="rollout-wave"][data-wave="0"]');
  await expect(canary.getByTestId("wave-server")).toHaveAttribute("data-state", "applied", { timeout: 60_000 });
  await expect(canary).toHaveAttribute("data-state", "watching");
  await expect(canary).toContainText("guard window until");
  await eventually("the agent to sample every 3 s", () => (agent.status().intervalSeconds === 3 ? true : undefined));
  await endGuardWindow(rolloutId);
  // One server and no other to compare with: the wave holds, saying why, and never passes by itself.
  await expect(canary).toHaveAttribute("data-state", "holding", { timeout: 60_000 });
  await expect(canary.getByTestId("wave-hold-reason")).toContainText("Not enough data");
  await expect(canary.locator('[data-testid="guard-reading"][data-guard="comparative"]')).toHaveAttribute("data-status", "not-enough-data");
  await expect(canary.locator('[data-testid="guard-reading"][data-guard="failed"]')).toHaveAttribute("data-status", "pass");
  await page.screenshot({ path: testInfo.outputPath("rollout-holding.png"), fullPage: true });
  await canary.getByLabel("Why it may go on anyway").fill("one server, watched by hand: sampling looks right");
  await canary.getByTestId("wave-override").click();
  await expect(page.getByTestId("rollout")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  await expect(page.locator('[data-testid="timeline-entry"][data-kind="guard.overridden"]')).toContainText("one server, watched by hand");
  await expect(page.locator('[data-testid="rollout-notice"][data-kind="rollout.completed"]')).toBeVisible({ timeout: 30_000 });

  // A change the agent cannot honour: its fragmentation scanner is off. The rollout rolls it back.
  await page.goto("/policies");
  await page.locator('[data-testid="policy-row"][data-name="Sampling"]').getByRole("link").first().click();
  await saveVersion(
    page,
    { schemaVersion: 1, telemetry: { intervalSeconds: 3, fragmentationScan: { paths: ["/var/lib"] } } },
    "count fragments of /var/lib",
  );
  await page
    .getByTestId("save-bar")
    .getByTestId("delivery-choice")
    .getByLabel(/Guard window/)
    .fill("5");
  await page.getByTestId("save-version").click();
  await page.getByTestId("rollout-in-progress").filter({ hasText: "version 4" }).click();
  await expect(page.getByTestId("rollout")).toHaveAttribute("data-status", "paused", { timeout: 90_000 });
  await expect(page.getByTestId("rollout-reason")).toContainText("Rolled back: 1 server refused the policy (FAILED)");
  await expect(page.getByTestId("rollout-reason")).toContainText("fragmentation scanner is not running");
  const refusedWave = page.locator('[data-testid="rollout-wave"][data-wave="0"]');
  await expect(refusedWave).toHaveAttribute("data-state", "rolled_back");
  await expect(refusedWave.locator('[data-testid="guard-reading"][data-guard="failed"]')).toHaveAttribute("data-status", "trip");
  await expect(refusedWave.getByTestId("wave-server")).toContainText("previous policy confirmed by the agent", { timeout: 60_000 });
  await expect(page.locator('[data-testid="rollout-notice"][data-kind="rollout.rolled_back"]')).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: testInfo.outputPath("rollout-rolled-back.png"), fullPage: true });
  expect(agent.status().intervalSeconds).toBe(3);

  // The default rule fires through the organisation's alerts.
  await expect(async () => {
    await page.goto("/alerts");
    await expect(page.locator('[data-testid="open-alert"][data-rule="Policy rollout rolled back"]')).toHaveAttribute(
      "data-state",
      "firing",
      { timeout: 2_000 },
    );
  }).toPass({ timeout: 120_000, intervals: [5_000] });

  // Aborting puts the declared policy back; the audit log has every step with who did it.
  await page.goto(
    `/rollouts/${(await queryRows<{ id: string }>(e2eStack.databaseUrl, "SELECT id::text FROM rollouts WHERE title LIKE '%version 4' ORDER BY created_at DESC LIMIT 1"))[0]!.id}`,
  );
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByTestId("rollout-abort").click();
  await expect(page.getByTestId("rollout")).toHaveAttribute("data-status", "aborted");
  await page.goto("/settings/audit");
  for (const action of [
    "rollout.created",
    "rollout.guard_overridden",
    "rollout.completed",
    "rollout.rolled_back",
    "rollout.aborted",
    "policy.applied_now",
  ]) {
    await expect(page.locator(`[data-testid="audit-row"][data-action="${action}"]`).first()).toBeVisible();
  }
});
