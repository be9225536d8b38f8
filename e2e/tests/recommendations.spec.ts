// Recommendations, as an admin meets them: enrol this machine, switch the read cache on for a
// directory of files with a small budget, and once the agent reports the budget it enforces and
// the memory it has, the real worker recommends a bigger budget from the read cache's
// miss-ratio curve: what to change, why (the curve, its window, the link to it), the predicted hit
// ratio with its basis and a confidence. Apply saves a new version of the server's own policy,
// which the policies page lists and the agent applies.
//
// The curve: the agent sends its own miss-ratio curves once per 5-minute window, longer than this
// journey, so the journey stores one curve row for the server itself, as the gateway would from
// the agent's spindle.cache.mrc.* metrics; every other input (the enforced budget, MemAvailable,
// the policy) is the real agent's.
import { expect, test, type Page } from "@playwright/test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";
import pg from "pg";
import { e2eStack } from "../support/stack";

const mib = 1024 * 1024;
const agent = new InstalledAgent();
const dataDir = mkdtempSync(join(tmpdir(), "spindle-reco-e2e-"));

test.describe.configure({ mode: "serial" });
test.afterAll(async () => {
  await agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One query on a connection of its own (support/postgres.ts pulls in the gateway runner, which a spec cannot load). */
async function queryRows<T extends pg.QueryResultRow>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function reloadUntil(page: Page, check: () => Promise<void>, timeout: number): Promise<void> {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout, intervals: [2_000, 5_000] });
}

async function saveOrganisationPolicy(page: Page, document: object): Promise<void> {
  await page.goto("/policies");
  await page.getByTestId("create-policy").click();
  await page.getByTestId("create-policy-form").getByLabel("Name").fill("Read cache for the journey");
  await page.getByTestId("create-policy-submit").click();
  await page.getByTestId("view-json").click();
  await page.getByLabel("Policy JSON").fill(JSON.stringify(document, null, 2));
  await page.getByLabel("What changed and why").fill("read cache on with a small budget");
  await page.getByTestId("save-version").click();
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toBeVisible();
  await page.getByTestId("assign-form").getByLabel("Assign to").selectOption("organization");
  await page.getByTestId("assign-submit").click();
  await expect(page.getByTestId("assignment-row")).toHaveCount(1);
}

test("a budget recommendation with its evidence is applied as a new policy version", async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  writeFileSync(join(dataDir, "table.dat"), Buffer.alloc(4 * mib, 7));
  await signUp(page, newAccount("Recommendations"));
  await enrolThisMachine(page, agent);
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));
  await saveOrganisationPolicy(page, { schemaVersion: 1, readCache: { enabled: true, include: [`${dataDir}/**`], budgetBytes: 256 * mib } });

  // By the agent's own server id: the other journeys enrolled this machine too, in other organisations.
  const [server] = await queryRows<{ id: string; org_id: string }>(e2eStack.databaseUrl, "SELECT id, org_id FROM servers WHERE id = $1", [agent.status().serverId]);
  const budget = await eventually("the read cache's enforced budget", async () => {
    const rows = await queryRows<{ budget: string }>(e2eStack.databaseUrl,
      "SELECT budget_bytes AS budget FROM read_cache WHERE server_id = $1 AND budget_bytes > 0 ORDER BY time DESC LIMIT 1", [server!.id]);
    return rows[0] ? Number(rows[0].budget) : undefined;
  }, 120_000);
  expect(budget).toBe(256 * mib);
  await queryRows(e2eStack.databaseUrl,
    `INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
     VALUES ($1, $2, now(), 3600, 'read_cache', '', 0.01, 50000, $3, $4)`,
    [server!.org_id, server!.id, [128, 256, 512, 768, 1024].map((m) => m * mib), [0.35, 0.5, 0.8, 0.86, 0.865]]);

  // The worker refreshes every 5 s in this stack; the recommendation appears on the fleet page.
  await page.goto("/recommendations");
  await expect(page.getByRole("link", { name: "Recommendations", exact: true })).toHaveAttribute("aria-current", "page");
  const card = page.locator('[data-testid="recommendation"][data-kind="read_cache_budget"]');
  await reloadUntil(page, () => expect(card).toBeVisible(), 120_000);
  await expect(card.getByTestId("recommendation-title")).toHaveText("Raise the read-cache budget from 256 MiB to 768 MiB");
  await expect(card.getByTestId("recommendation-prediction")).toContainText(
    /budget 256 MiB → 768 MiB: read hit ratio 50 % → 86 % on the curve of the last 60 minutes; the host has [\d.]+ GiB spare at the 5th percentile/);
  await expect(card.getByTestId("recommendation-confidence")).toHaveAttribute("data-level", "medium");
  await expect(card.getByTestId("recommendation-evidence")).toContainText("miss-ratio curve of the read cache (cache_mrc");
  await expect(card.getByTestId("recommendation-evidence")).toContainText("MemAvailable, 5th percentile");
  await expect(card.getByTestId("recommendation-evidence-link")).toHaveAttribute("href", new RegExp(`^/servers/${server!.id}\\?from=.+&to=.+#miss-ratio-curves$`));
  await expect(card.getByTestId("recommendation-change")).toHaveText(`readCache.budgetBytes = ${768 * mib}`);
  await page.screenshot({ path: testInfo.outputPath("recommendation-open.png"), fullPage: true });

  await card.getByTestId("recommendation-apply").click();
  await expect(card).toHaveAttribute("data-status", "applied");
  await expect(card.getByTestId("recommendation-realised")).toHaveAttribute("data-status", "pending");
  const policyLink = card.getByTestId("recommendation-policy-link");
  await expect(policyLink).toHaveText(`${hostname()} (recommendations) version 1`);

  // The new policy version, on the policies page, with the recommendation as its comment.
  await policyLink.click();
  await expect(page.getByTestId("policy-name")).toHaveText(`${hostname()} (recommendations)`);
  const version = page.locator('[data-testid="version-row"][data-version="1"]');
  await expect(version).toContainText("Recommendation: Raise the read-cache budget from 256 MiB to 768 MiB");
  await expect(page.getByTestId("assignment-row")).toContainText(hostname());
  await page.screenshot({ path: testInfo.outputPath("recommendation-policy.png"), fullPage: true });

  // Pushed over OpAMP: the agent applies it, and the server's panel shows the applied recommendation.
  await page.goto(`/servers/${server!.id}`);
  await expect(page.getByTestId("policy-status")).toHaveAttribute("data-status", "applied", { timeout: 60_000 });
  await expect(page.locator('[data-testid="effective-field"][data-path="readCache.budgetBytes"]')).toHaveAttribute("data-source", "server");
  await expect(page.getByTestId("server-recommendations").getByTestId("recommendation")).toHaveAttribute("data-status", "applied");
  await eventually("the agent to enforce the new budget", async () => {
    const rows = await queryRows<{ budget: string }>(e2eStack.databaseUrl,
      "SELECT budget_bytes AS budget FROM read_cache WHERE server_id = $1 ORDER BY time DESC LIMIT 1", [server!.id]);
    return rows[0] && Number(rows[0].budget) === 768 * mib ? true : undefined;
  }, 60_000);
  await page.screenshot({ path: testInfo.outputPath("server-recommendation-applied.png"), fullPage: true });
});
