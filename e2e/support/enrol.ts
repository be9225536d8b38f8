// Adds this machine to the signed-in organisation the way a user does: Add server, create a
// token, run the one-liner, start the agent.
import { expect, type Page } from "@playwright/test";
import { windowsInstallCommand } from "../../apps/console/modules/enrollment/lib/install-command";
import { pinnedKeysOf, verifiesAsWindows } from "../../apps/console/test-support/windows-signature";
import type { InstalledAgent } from "./agent";

/**
 * `configure` edits agent.yaml before the agent's first start (e.g. `agent.setMRCWindow`);
 * `start` starts it (default: a child of the test; the upgrades journey starts it detached).
 */
export async function enrolThisMachine(
  page: Page,
  agent: InstalledAgent,
  intervalSeconds = 2,
  configure: (agent: InstalledAgent) => void = () => {},
  start: (agent: InstalledAgent) => void = (installed) => installed.start(),
): Promise<string> {
  await page.goto("/servers/add");
  await page.getByTestId("create-token").click();
  const oneLiner = (await page.getByTestId("install-command").textContent())!.trim();
  // The default `npm start` gateway, http://<hostname>:<port>: plain http, so the flag.
  const [, gateway, token] = expectInstallCommand(oneLiner);
  // The Windows tab shows the PowerShell line for the same token (text checked in the console's
  // unit test; its URLs and the agent's install under Wine in integration/windows-agent.test.ts).
  await page.getByTestId("install-tab-windows").click();
  const windows = (await page.getByTestId("install-command-windows").textContent())!.trim();
  expect(windows).toBe(windowsInstallCommand(gateway!, token!, pinnedKeysOf(windows)));
  // The key it pins (from the console) checks the real gateway's signature over its SHA256SUMS,
  // as the command's .NET check would (issue 25, L4).
  const [sums, signature] = await Promise.all(
    ["SHA256SUMS", "SHA256SUMS.p256.sig"].map(async (name) =>
      Buffer.from(await (await fetch(`${gateway}/download/${name}`)).arrayBuffer()),
    ),
  );
  expect(verifiesAsWindows(sums!, signature!, pinnedKeysOf(windows))).toBe(true);
  agent.install(oneLiner);
  agent.setInterval(intervalSeconds);
  configure(agent);
  start(agent);
  return oneLiner;
}

/** Checks the Linux one-liner's shape and returns [command, gateway URL, token]. */
export function expectInstallCommand(oneLiner: string): [string, string, string] {
  const match =
    /^script=\$\(curl -fsSL (http:\/\/[^/\s]+)\/install\.sh\) && printf '%s\\n' '(spe_\S+)' \| sh -c "\$script" spindle-install --token-stdin --allow-http$/.exec(
      oneLiner,
    );
  expect(match, `the install command as the page shows it: ${oneLiner}`).not.toBeNull();
  return [match![0], match![1]!, match![2]!];
}
