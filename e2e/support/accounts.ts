// Signs people up through the console's own forms, as a user would.
import { expect, type Locator, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { lastMailIndex, linkIn, waitForMail } from "./mail";

export interface Account {
  name: string;
  email: string;
  password: string;
  organisation: string;
}

export function newAccount(who: string): Account {
  const id = randomBytes(3).toString("hex");
  return {
    name: `${who} ${id}`,
    email: `${who.toLowerCase()}-${id}@example.test`,
    password: `pw-${id}-long-enough`,
    organisation: `${who} Corp ${id}`,
  };
}

/**
 * Signs up through the form, confirms the address with the link the console mails (read from the
 * journeys' SMTP server), creates the organisation on the page the link opens, and lands on the
 * fleet as its owner. (The first account of an install without a mail server goes straight in.)
 */
export async function signUp(page: Page, account: Account): Promise<void> {
  const before = await lastMailIndex();
  await page.goto("/sign-up");
  await page.getByLabel("Your name").fill(account.name);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByLabel("Organisation name").fill(account.organisation);
  await submitUntilAccepted(page, "sign-up-submit", page.getByTestId("check-inbox").or(page.getByTestId("org-name")));
  if (await page.getByTestId("check-inbox").isVisible()) {
    const mail = await waitForMail(account.email, "verify-email", before);
    await page.goto(linkIn(mail, /\/api\/auth\/verify-email\?/));
    await expect(page).toHaveURL(/\/onboarding\?/);
    await expect(page.getByLabel("Organisation name")).toHaveValue(account.organisation);
    await page.getByTestId("create-organisation").click();
  }
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByTestId("org-name")).toHaveText(account.organisation);
}

export async function signIn(page: Page, account: Pick<Account, "email" | "password">): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await submitUntilAccepted(page, "sign-in-submit", page.getByTestId("org-name"));
  await expect(page).toHaveURL(/\/servers$/);
}

/**
 * Submits a sign-up or sign-in form and waits for `done`. The console limits sign-ups and
 * sign-ins per client address, and the journeys all come from one address (reached directly,
 * with no proxy to name the client, they share one bucket): when the form says to wait, wait as
 * a person would and send it again.
 */
export async function submitUntilAccepted(page: Page, submit: string, done: Locator): Promise<void> {
  const limited = page.getByTestId("form-error").filter({ hasText: "Too many attempts" });
  for (let attempt = 0; attempt < 8; attempt++) {
    await page.getByTestId(submit).click();
    await expect(done.or(limited)).toBeVisible();
    if (await done.isVisible()) return;
    await page.waitForTimeout(10_000);
  }
  await expect(done).toBeVisible();
}
