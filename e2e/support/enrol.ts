// Adds this machine to the signed-in organisation the way a user does: Add server, create a
// token, run the one-liner, start the agent.
import { expect, type Page } from "@playwright/test";
import { windowsInstallCommand } from "../../apps/console/modules/enrollment/lib/install-command";
import type { InstalledAgent } from "./agent";

/** `configure` edits agent.yaml before the agent's first start (e.g. `agent.setMRCWindow`). */
export async function enrolThisMachine(page: Page, agent: InstalledAgent, intervalSeconds = 2,
  configure: (agent: InstalledAgent) => void = () => {}): Promise<string> {
  await page.goto("/servers/add");
  await page.getByTestId("create-token").click();
  const oneLiner = (await page.getByTestId("install-command").textContent())!.trim();
  expect(oneLiner).toMatch(
    /^script=\$\(curl -fsSL http:\/\/127\.0\.0\.1:\d+\/install\.sh\) && printf '%s\\n' 'spe_\S+' \| sudo sh -c "\$script" spindle-install --token-stdin$/,
  );
  // The Windows tab shows the PowerShell line for the same token (text checked in the console's
  // unit test; its URLs and the agent's install under Wine in integration/windows-agent.test.ts).
  const [, gateway, token] = /curl -fsSL (\S+)\/install\.sh.*'(spe_\S+)'/.exec(oneLiner)!;
  await page.getByTestId("install-tab-windows").click();
  await expect(page.getByTestId("install-command-windows")).toHaveText(windowsInstallCommand(gateway!, token!));
  agent.install(oneLiner);
  agent.setInterval(intervalSeconds);
  configure(agent);
  agent.start();
  return oneLiner;
}
