// Recommendations, as an admin meets them: enrol this machine, switch the read cache on for a
// directory with a budget below its hot set, and run a read workload there (support/known-workload.ts).
// The agent builds its own miss-ratio curves (15 s windows in agent.yaml), the real worker
// recommends a bigger budget from the read cache's curve: what to change, why (the curve, its
// window, the link to it), the predicted hit ratio with its basis and a confidence. The server
// page draws the curve. Apply saves a new version of the server's own policy, which the policies
// page lists and the agent applies. Every input is the real agent's; as root only (eBPF).
import { expect, test, type Page } from "@playwright/test";
import { hostname, userInfo } from "node:os";
import { newAccount, signUp } from "../support/accounts";
import { expectChartsDrawn } from "../support/charts";
import { eventually, InstalledAgent } from "../support/agent";
import { enrolThisMachine } from "../support/enrol";
import { KnownWorkload } from "../support/known-workload";
import pg from "pg";
import { e2eStack } from "../support/stack";

const mib = 1024 * 1024;
const agent = new InstalledAgent();
const workload = new KnownWorkload();
const startBudgetBytes = 16 * mib;

test.describe.configure({ mode: "serial" });
test.skip(userInfo().uid !== 0, "the agent's miss-ratio curves need eBPF: run the journeys as root");
test.afterAll(async () => {
  await workload.destroy();
  await agent.destroy();
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
  workload.create();
  await signUp(page, newAccount("Recommendations"));
  await enrolThisMachine(page, agent, 2, (installed) => installed.setMRCWindow(15));
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));
  await saveOrganisationPolicy(page, {
    schemaVersion: 1,
    telemetry: { intervalSeconds: 2 },
    readCache: { enabled: true, include: [`${workload.dir}/**`], budgetBytes: startBudgetBytes, scanResistanceThresholdBytes: 8 * mib },
  });

  // By the agent's own server id: the other journeys enrolled this machine too, in other organisations.
  const [server] = await queryRows<{ id: string; org_id: string }>(e2eStack.databaseUrl, "SELECT id, org_id FROM servers WHERE id = $1", [
    agent.status().serverId,
  ]);
  const budget = await eventually(
    "the read cache's enforced budget",
    async () => {
      const rows = await queryRows<{ budget: string }>(
        e2eStack.databaseUrl,
        "SELECT budget_bytes AS budget FROM read_cache WHERE server_id = $1 AND budget_bytes > 0 ORDER BY time DESC LIMIT 1",
        [server!.id],
      );
      return rows[0] ? Number(rows[0].budget) : undefined;
    },
    120_000,
  );
  expect(budget).toBe(startBudgetBytes);
  workload.start();

  // The curve on the server page: the agent's own, of the read cache's scope.
  await page.goto(`/servers/${server!.id}`);
  const curves = page.locator("#miss-ratio-curves").getByTestId("cache-curves");
  await reloadUntil(
    page,
    () => expect(curves.getByTestId("curve-pick-read_cache")).toHaveText(`Read-cache scope ${workload.dir}/**`),
    120_000,
  );
  await curves.getByTestId("curve-pick-read_cache").click();
  await expect(curves.getByTestId("cache-curve-chart")).toBeVisible();
  await expect(curves.getByTestId("curve-basis")).toContainText(/Basis: [\d,]+ sampled accesses at a sampling rate of/);
  // Each curve (page cache, the read cache's scope, each disk) is drawn, not just its box; and
  // so is every other chart on the page.
  const picks = curves.locator('[data-testid^="curve-pick-"]');
  expect(await picks.count()).toBeGreaterThanOrEqual(2);
  for (const pick of await picks.all()) {
    await pick.click();
    await expect(pick).toHaveAttribute("aria-pressed", "true");
    await expectChartsDrawn(page, { scope: curves, atLeast: 1 });
  }
  await expectChartsDrawn(page, { atLeast: 5 });
  await page.screenshot({ path: testInfo.outputPath("server-curve.png"), fullPage: true });

  // The worker refreshes every 5 s in this stack; the recommendation appears on the fleet page.
  await page.goto("/recommendations");
  await expect(page.getByRole("link", { name: "Recommendations", exact: true })).toHaveAttribute("aria-current", "page");
  const card = page.locator('[data-testid="recommendation"][data-kind="read_cache_budget"]');
  // Until the scope's own curve reaches the worker, the whole page cache's stands in: wait for the scope's.
  await reloadUntil(
    page,
    () =>
      expect(card.getByTestId("recommendation-evidence")).toContainText(`miss-ratio curve of the read cache (scope ${workload.dir}/**)`, {
        timeout: 1_000,
      }),
    120_000,
  );
  await expect(card.getByTestId("recommendation-title")).toHaveText(/^Raise the read-cache budget from 16 MiB to [\d.]+ MiB$/);
  await expect(card.getByTestId("recommendation-prediction")).toContainText(
    /budget 16 MiB → [\d.]+ MiB: read hit ratio [\d.]+ % → [\d.]+ % on the curve of [^;]+; the host has [\d.]+ GiB spare at the 5th percentile/,
  );
  await expect(card.getByTestId("recommendation-confidence")).toHaveAttribute("data-level", /^(low|medium|high)$/);
  await expect(card.getByTestId("recommendation-evidence")).toContainText("MemAvailable, 5th percentile");
  await expect(card.getByTestId("recommendation-evidence-link")).toHaveAttribute(
    "href",
    new RegExp(`^/servers/${server!.id}\\?from=.+&to=.+#miss-ratio-curves$`),
  );
  await expect(card.getByTestId("recommendation-change")).toHaveText(/^readCache\.budgetBytes = \d+$/);
  const title = (await card.getByTestId("recommendation-title").textContent())!;
  const newBudget = Number(/= (\d+)$/.exec((await card.getByTestId("recommendation-change").textContent())!)![1]);
  await page.screenshot({ path: testInfo.outputPath("recommendation-open.png"), fullPage: true });
  // The evidence link lands on the curves of the server page.
  await card.getByTestId("recommendation-evidence-link").click();
  await expect(page).toHaveURL(new RegExp(`/servers/${server!.id}\\?.+#miss-ratio-curves$`));
  await expect(page.locator("#miss-ratio-curves").getByTestId("cache-curves")).toBeVisible();
  await page.goBack();

  await card.getByTestId("recommendation-apply").click();
  await expect(card).toHaveAttribute("data-status", "applied");
  await expect(card.getByTestId("recommendation-realised")).toHaveAttribute("data-status", "pending");
  const policyLink = card.getByTestId("recommendation-policy-link");
  await expect(policyLink).toHaveText(`${hostname()} (recommendations) version 1`);

  // The new policy version, on the policies page, with the recommendation as its comment.
  await policyLink.click();
  await expect(page.getByTestId("policy-name")).toHaveText(`${hostname()} (recommendations)`);
  const version = page.locator('[data-testid="version-row"][data-version="1"]');
  await expect(version).toContainText(`Recommendation: ${title}`);
  await expect(page.getByTestId("assignment-row")).toContainText(hostname());
  await page.screenshot({ path: testInfo.outputPath("recommendation-policy.png"), fullPage: true });

  // Pushed over OpAMP: the agent applies it, and the server's panel shows the applied recommendation.
  await page.goto(`/servers/${server!.id}`);
  await expect(page.getByTestId("policy-status")).toHaveAttribute("data-status", "applied", { timeout: 60_000 });
  await expect(page.locator('[data-testid="effective-field"][data-path="readCache.budgetBytes"]')).toHaveAttribute("data-source", "server");
  // The real agent's block curve may earn the disk a flash-tier recommendation too: pick the budget's card.
  await expect(
    page.getByTestId("server-recommendations").locator('[data-testid="recommendation"][data-kind="read_cache_budget"]'),
  ).toHaveAttribute("data-status", "applied");
  await eventually(
    "the agent to enforce the new budget",
    async () => {
      const rows = await queryRows<{ budget: string }>(
        e2eStack.databaseUrl,
        "SELECT budget_bytes AS budget FROM read_cache WHERE server_id = $1 ORDER BY time DESC LIMIT 1",
        [server!.id],
      );
      return rows[0] && Number(rows[0].budget) === newBudget ? true : undefined;
    },
    60_000,
  );
  await page.screenshot({ path: testInfo.outputPath("server-recommendation-applied.png"), fullPage: true });
});
