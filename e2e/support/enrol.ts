// Adds this machine to the signed-in organisation the way a user does: Add server, create a
// token, run the one-liner, start the agent.
import { expect, type Page } from "@playwright/test";
import { InstalledAgent } from "./agent";

export async function enrolThisMachine(page: Page, agent: InstalledAgent, intervalSeconds = 2): Promise<string> {
  await page.goto("/servers/add");
  await page.getByTestId("create-token").click();
  const oneLiner = (await page.getByTestId("install-command").textContent())!.trim();
  expect(oneLiner).toMatch(/^curl -fsSL http:\/\/127\.0\.0\.1:4400\/install\.sh \| sudo sh -s -- --token spe_\S+$/);
  agent.install(oneLiner);
  agent.setInterval(intervalSeconds);
  agent.start();
  return oneLiner;
}
