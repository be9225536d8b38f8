// Signs people up through the console's own forms, as a user would.
import { expect, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";

export interface Account {
  name: string;
  email: string;
  password: string;
  organisation: string;
}

export function newAccount(who: string): Account {
  const id = randomBytes(3).toString("hex");
  return { name: `${who} ${id}`, email: `${who.toLowerCase()}-${id}@example.test`, password: `pw-${id}-long-enough`, organisation: `${who} Corp ${id}` };
}

export async function signUp(page: Page, account: Account): Promise<void> {
  await page.goto("/sign-up");
  await page.getByLabel("Your name").fill(account.name);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByLabel("Organisation name").fill(account.organisation);
  await page.getByTestId("sign-up-submit").click();
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByTestId("org-name")).toHaveText(account.organisation);
}

export async function signIn(page: Page, account: Pick<Account, "email" | "password">): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByTestId("sign-in-submit").click();
  await expect(page).toHaveURL(/\/servers$/);
}
