// Agent upgrades, as an admin meets them on the Upgrades page: this machine enrolled with the
// one-liner and its agent started detached with a pid file (as on a host without systemd), the
// gateway serving the built release and the next patch version (support/built-releases.ts).
// The admin sees the versions across the fleet and "upgrade available", starts an upgrade of this
// server, follows it to the outcome the agent reports (the real agent verifies the download,
// swaps its binary and its watchdog restarts it), pins the server to the previous version (the
// pin offers it at once, and the agent goes back), and finds each step in the audit log.
import { expect, test } from "@playwright/test";
import { hostname } from "node:os";
import { newAccount, signUp } from "../support/accounts";
import { eventually, InstalledAgent } from "../support/agent";
import { DetachedAgent } from "../support/detached-agent";
import { enrolThisMachine } from "../support/enrol";
import { e2eStack } from "../support/stack";

const agent = new InstalledAgent();
const detached = new DetachedAgent(agent);
const { installed, next } = e2eStack.releases;

test.afterAll(async () => {
  await detached.stop();
  await agent.destroy();
});

test("versions across the fleet, an upgrade started and followed to the agent's report, a pin, and the audit log", async ({ page }) => {
  test.setTimeout(300_000);
  await signUp(page, newAccount("Upgrades"));
  await enrolThisMachine(
    page,
    agent,
    2,
    () => detached.configureUpgrades(60),
    () => detached.start(),
  );
  const firstPid = detached.pid()!;
  await eventually("the agent's first batch", () => (agent.status().lastBatchSeq > 0 ? true : undefined));

  // The fleet's versions: this server runs the installed release and may take the next one over OpAMP.
  await page.goto("/upgrades");
  const row = page.locator(`[data-testid="fleet-version-row"][data-hostname="${hostname()}"]`);
  await expect(row.getByTestId("agent-version")).toHaveText(installed);
  await expect(row.getByTestId("upgrade-available")).toHaveText(`upgrade available: ${next}`);
  // The agent says how it upgrades once it has connected over OpAMP (the page polls).
  await expect(row).toContainText("over OpAMP (script)");
  await expect(page.getByTestId("version-counts")).toContainText(`${installed}: 1 server`);
  await expect(page.getByTestId("fleet-versions")).toContainText(
    `The gateways serve up to ${next}; 1 of 1 servers run an older agent and are not pinned.`,
  );
  await expect(page.getByTestId("releases")).toContainText(next);

  // Start: the next version, this server, no soak (one server: the canary is the whole upgrade).
  const form = page.getByTestId("start-upgrade-form");
  await form.getByTestId("upgrade-version").selectOption(next);
  await form.getByTestId("upgrade-scope").selectOption("servers");
  await form.getByTestId("upgrade-servers").getByLabel(new RegExp(hostname())).check();
  await form.getByLabel("Waves after the canary").fill("100");
  await form.getByTestId("upgrade-soak").fill("0");
  await form.getByTestId("start-upgrade").click();
  await expect(page).toHaveURL(/\/upgrades\/[0-9a-f-]{36}$/);

  // Followed to the agent's own report: verified, swapped, restarted by its watchdog, connected.
  const attempt = page.locator(`[data-testid="attempt-row"][data-hostname="${hostname()}"]`);
  await expect(attempt).toContainText(installed); // from
  await expect(attempt.getByTestId("attempt-state")).toHaveAttribute("data-state", "installed", { timeout: 150_000 });
  await expect(page.getByTestId("rollout-status").first()).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  expect(detached.version()).toBe(`spindle-agent ${next}`);
  expect(detached.pid()).not.toBe(firstPid);
  expect(detached.running(detached.pid()!)).toBe(true);

  await page.goto("/upgrades");
  await expect(row.getByTestId("agent-version")).toHaveText(next);
  await expect(row).toContainText("up to date");
  await expect(page.getByTestId("rollout-row").first()).toContainText("1 installed");

  // Pin the server to the previous version: the pin offers it at once and the agent goes back.
  await row.getByRole("link", { name: hostname() }).click();
  const panel = page.getByTestId("server-agent-version");
  await expect(panel.getByTestId("server-agent-running")).toHaveText(next);
  await panel.getByTestId("pin-version").selectOption(installed);
  await panel.getByLabel("Why (kept with the pin)").fill("vendor support matrix lists the previous agent");
  await panel.getByTestId("pin-server").click();
  await expect(panel.getByTestId("server-pin")).toHaveText(`pinned to ${installed}`);
  await expect(panel).toContainText("vendor support matrix lists the previous agent");
  const back = panel
    .getByTestId("server-upgrade-attempts")
    .locator("li")
    .filter({ hasText: `${next} → ${installed}` });
  await expect(back.getByTestId("attempt-state")).toHaveAttribute("data-state", "installed", { timeout: 150_000 });
  await expect(panel.getByTestId("server-agent-running")).toHaveText(installed, { timeout: 30_000 });
  expect(detached.version()).toBe(`spindle-agent ${installed}`);
  // Held at its pin, the server is offered no newer release beside the pin badge.
  await expect(panel.getByTestId("server-upgrade-available")).toHaveCount(0);

  // Every step, with who did it, in the audit log (the canary is offered with the start).
  await page.goto("/settings/audit");
  const audit = (action: string) => page.locator(`[data-testid="audit-row"][data-action="${action}"]`);
  await expect(audit("agent_upgrade.started")).toContainText(`started upgrading 1 chosen server to agent ${next} in 1 wave`);
  await expect(audit("agent_upgrade.wave_installed")).toContainText(`saw wave 0 install agent ${next}`);
  await expect(audit("agent_upgrade.completed")).toContainText(`completed the upgrade to agent ${next}`);
  await expect(audit("agent_version.pinned")).toContainText(`to agent ${installed}: vendor support matrix lists the previous agent`);
});
