// Identity and automation, as people use them, with every message read from the real SMTP server
// the console sends to (support/mail-sink.ts): sign-up confirmed by mail, a forgotten password
// reset, two-factor enrolment and sign-in with a code computed here (support/totp.ts), single
// sign-on through a real OpenID provider (support/oidc-idp.ts) that refuses another domain, and
// an API token used by a plain HTTP client until it is revoked.
import { expect, test, type Browser, type Page } from "@playwright/test";
import pg from "pg";
import { newAccount, signIn, signUp, submitUntilAccepted, type Account } from "../support/accounts";
import { lastMailIndex, linkIn, messagesTo, waitForMail } from "../support/mail";
import { startIdentityProvider } from "../support/oidc-idp";
import { e2eStack } from "../support/stack";
import { totp, totpWindow } from "../support/totp";

test.describe.configure({ mode: "serial" });

async function signOut(page: Page) {
  await page.getByTestId("user-menu").click();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
}

async function fresh(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test("a new account opens only once its address is confirmed by the mailed link", async ({ page, browser }) => {
  const account = newAccount("Verified");
  const before = await lastMailIndex();
  await page.goto("/sign-up");
  await page.getByLabel("Your name").fill(account.name);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByLabel("Organisation name").fill(account.organisation);
  await submitUntilAccepted(page, "sign-up-submit", page.getByTestId("check-inbox"));
  await expect(page.getByTestId("check-inbox-email")).toHaveText(account.email);

  const mail = await waitForMail(account.email, "verify-email", before);
  expect(mail.subject).toBe("Confirm your e-mail address for Spindle");

  // Until then the password alone does not open it; the console says why and mails a new link.
  const early = await fresh(browser);
  await early.goto("/sign-in");
  await early.getByLabel("Email").fill(account.email);
  await early.getByLabel("Password").fill(account.password);
  await submitUntilAccepted(
    early,
    "sign-in-submit",
    early.getByTestId("form-error").filter({ hasText: "Confirm your e-mail address first" }),
  );
  await waitForMail(account.email, "verify-email", mail.index);

  // The sign-up's link returns to onboarding with the organisation name typed at sign-up.
  await page.goto(linkIn(mail, /\/api\/auth\/verify-email\?token=/));
  await expect(page).toHaveURL(/\/onboarding\?/);
  await expect(page.getByTestId("onboarding-description")).toContainText("Your e-mail address is confirmed");
  await expect(page.getByLabel("Organisation name")).toHaveValue(account.organisation);
  await page.getByTestId("create-organisation").click();
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByTestId("org-name")).toHaveText(account.organisation);

  // Signing up again with the address answers the same as for a new one; its owner is told by mail.
  const again = await fresh(browser);
  const beforeAgain = await lastMailIndex();
  await again.goto("/sign-up");
  await again.getByLabel("Your name").fill("Someone else");
  await again.getByLabel("Email").fill(account.email);
  await again.getByLabel("Password").fill("another-password-123");
  await again.getByLabel("Organisation name").fill("Other Corp");
  await submitUntilAccepted(again, "sign-up-submit", again.getByTestId("check-inbox"));
  const notice = await waitForMail(account.email, "account-exists", beforeAgain);
  expect(notice.subject).toBe("You already have a Spindle account");
  await early.context().close();
  await again.context().close();
});

test("a forgotten password is reset by a single-use mailed link, and the answer never tells who has an account", async ({
  page,
  browser,
}) => {
  const account = newAccount("Forgetful");
  await signUp(page, account);
  const elsewhere = await fresh(browser);
  await signIn(elsewhere, account);
  await signOut(page);

  const before = await lastMailIndex();
  const unknown = `nobody-${Date.now()}@example.test`;
  for (const address of [unknown, account.email]) {
    await page.goto("/sign-in");
    await page.getByTestId("forgot-password").click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await page.getByLabel("Email").fill(address);
    await page.getByTestId("forgot-password-submit").click();
    await expect(page.getByTestId("reset-requested")).toContainText(
      `If ${address} has a Spindle account, a link to choose a new password is on its way.`,
    );
  }
  const mail = await waitForMail(account.email, "reset-password", before);
  expect(mail.subject).toBe("Reset your Spindle password");
  expect(await messagesTo(unknown), "nothing goes to an address without an account").toEqual([]);

  const link = linkIn(mail, /\/api\/auth\/reset-password\//);
  await page.goto(link);
  await expect(page).toHaveURL(/\/reset-password\?token=/);
  const newPassword = `${account.password}-renewed`;
  await page.getByLabel("New password", { exact: true }).fill(newPassword);
  await page.getByLabel("Repeat the new password").fill(newPassword);
  await page.getByTestId("reset-password-submit").click();
  await expect(page.getByTestId("password-reset-done")).toBeVisible();

  await page.goto(link);
  await expect(page.getByTestId("reset-link-invalid")).toBeVisible();

  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await submitUntilAccepted(page, "sign-in-submit", page.getByTestId("form-error").filter({ hasText: "Wrong email or password." }));
  await signIn(page, { email: account.email, password: newPassword });

  // The reset signed out every session, the other browser's too.
  await elsewhere.goto("/servers");
  await expect(elsewhere).toHaveURL(/\/sign-in/);
  await elsewhere.context().close();
});

test("two-factor authentication is turned on with an authenticator code and then asked at sign-in", async ({ page }) => {
  const account = newAccount("Careful");
  await signUp(page, account);
  const before = await lastMailIndex();
  await page.getByTestId("user-menu").click();
  await page.getByTestId("account-security").click();
  await expect(page).toHaveURL(/\/account\/security$/);
  await expect(page.getByTestId("mfa-status")).toHaveAttribute("data-enabled", "false");

  await page.getByTestId("enable-mfa").click();
  await page.getByLabel("Your password").fill(account.password);
  await page.getByTestId("mfa-password-submit").click();
  await expect(page.getByTestId("totp-qr")).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").getAttribute("data-secret"))!;
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  const enrolledIn = totpWindow();
  await page.getByLabel("Code from the app").fill(totp(secret));
  await page.getByTestId("confirm-mfa").click();
  await expect(page.getByTestId("recovery-code")).toHaveCount(10);
  await page.getByTestId("recovery-codes-saved").click();
  await expect(page.getByTestId("mfa-status")).toHaveAttribute("data-enabled", "true");
  const notice = await waitForMail(account.email, "mfa-enabled", before);
  expect(notice.subject).toBe("Two-factor authentication is on for your Spindle account");

  await page.getByTestId("back-to-console").click();
  await expect(page).toHaveURL(/\/servers$/);
  await signOut(page);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await submitUntilAccepted(page, "sign-in-submit", page.getByTestId("two-factor-form"));
  await expect(page).toHaveURL(/\/sign-in\/two-factor$/);
  const wrong = String((Number(totp(secret)) + 1) % 1_000_000).padStart(6, "0");
  await page.getByLabel("Authentication code").fill(wrong);
  await page.getByTestId("two-factor-submit").click();
  await expect(page.getByTestId("form-error")).toContainText("That code is not right");
  // A code is for one 30-second window; use one from a window after the enrolment's.
  await expect.poll(() => totpWindow(), { timeout: 40_000 }).toBeGreaterThan(enrolledIn);
  await page.getByLabel("Authentication code").fill(totp(secret));
  await page.getByTestId("two-factor-submit").click();
  await expect(page).toHaveURL(/\/servers$/);
  await expect(page.getByTestId("org-name")).toHaveText(account.organisation);

  await page.goto("/settings/audit");
  await expect(page.locator('[data-testid="audit-row"][data-action="auth.mfa_enabled"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="audit-row"][data-action="auth.signed_in"]').first()).toContainText(
    "password and authenticator code",
  );
  await expect(page.locator('[data-testid="audit-row"][data-action="auth.sign_in_failed"]').first()).toContainText(
    "wrong authenticator code",
  );
});

test("single sign-on through the organisation's OpenID provider lets its domain in and refuses another", async ({ page, browser }) => {
  const owner: Account = newAccount("Sso");
  await signUp(page, owner);
  const security = (await (await page.request.get("/api/organization/security")).json()) as { security: { redirectUri: string } };
  const idp = await startIdentityProvider(security.security.redirectUri);
  try {
    const domain = `sso-${Date.now()}.test`;
    await page.goto("/settings/security");
    await expect(page.getByTestId("sso-redirect-uri")).toHaveText(security.security.redirectUri);
    await page.getByLabel("Issuer URL").fill(idp.issuer);
    await page.getByLabel("Client ID").fill(idp.clientId);
    await page.getByLabel("Client secret").fill(idp.clientSecret);
    await page.getByLabel("Allowed e-mail domain").fill(domain);
    await page.getByLabel("Role of members who join by single sign-on").selectOption("viewer");
    await page.getByTestId("save-sso").click();
    await expect(page.getByTestId("sso-saved")).toBeVisible();
    await expect(page.getByTestId("sso-settings")).toHaveAttribute("data-configured", "true");

    // The client secret is sealed at rest: the database holds no copy of it.
    const client = new pg.Client({ connectionString: e2eStack.databaseUrl });
    await client.connect();
    const stored = await client.query<{ oidc_config: string }>("SELECT oidc_config FROM sso_providers WHERE domain = $1", [domain]);
    await client.end();
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.oidc_config).not.toContain(idp.clientSecret);
    expect(JSON.parse(stored.rows[0]!.oidc_config).clientSecret).toMatchObject({ sealed: 1 });

    async function throughProvider(member: Page, typed: string, loginAs: string) {
      await member.goto("/sign-in");
      await member.getByTestId("sign-in-sso").click();
      await expect(member).toHaveURL(/\/sign-in\/sso$/);
      await member.getByLabel("Work email").fill(typed);
      await member.getByTestId("sso-submit").click();
      await expect(member).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
      await member.locator('input[name="login"]').fill(loginAs);
      await member.locator('input[name="password"]').fill("any password");
      await member.getByRole("button", { name: "Sign-in" }).click();
      await member.getByRole("button", { name: "Continue" }).click();
    }

    const ana = await fresh(browser);
    await throughProvider(ana, `ana@${domain}`, `ana@${domain}`);
    await expect(ana).toHaveURL(/\/servers$/);
    await expect(ana.getByTestId("org-name")).toHaveText(owner.organisation);

    await page.goto("/settings/members");
    const row = page.locator(`[data-testid="member-row"][data-email="ana@${domain}"]`);
    await expect(row.getByLabel(`Role of ana@${domain}`)).toHaveValue("viewer");
    await page.goto("/settings/audit");
    await expect(page.locator('[data-testid="audit-row"][data-action="member.added"]').first()).toContainText(
      `ana@${domain} as viewer (single sign-on)`,
    );

    // Someone the provider knows, but from another domain, is refused and told why.
    const eve = await fresh(browser);
    await throughProvider(eve, `eve@${domain}`, "eve@elsewhere.test");
    await expect(eve).toHaveURL(/\/sign-in\/sso\?error=domain_not_allowed/);
    await expect(eve.getByTestId("form-error")).toHaveText(`Single sign-on for this organisation accepts only @${domain} addresses.`);
    await page.reload();
    await expect(page.locator('[data-testid="audit-row"][data-action="auth.sso_refused"]').first()).toContainText("eve@elsewhere.test");
    await ana.context().close();
    await eve.context().close();
  } finally {
    await idp.close();
  }
});

test("an API token made in the console works from a plain HTTP client until it is revoked", async ({ page }) => {
  const owner = newAccount("Automation");
  await signUp(page, owner);
  await page.goto("/settings/api-tokens");
  await page.getByLabel("Token name").fill("ci");
  await page.getByLabel("Role").selectOption("admin");
  await page.getByLabel("Expires after").selectOption("30");
  await page.getByTestId("create-api-token").click();
  const secret = (await page.getByTestId("api-token-secret").textContent())!.trim();
  expect(secret).toMatch(/^spk_[A-Za-z]{48}$/);

  // A script: Node's fetch, no cookie, no Origin.
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${e2eStack.consoleUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...init.headers },
    });
  const servers = await api("/api/servers");
  expect(servers.status).toBe(200);
  expect(await servers.json()).toMatchObject({ servers: [], total: 0, fleetSize: 0 });
  const created = await api("/api/policies", { method: "POST", body: JSON.stringify({ name: "Made by a script" }) });
  expect(created.status).toBe(201);
  expect(((await created.json()) as { policy: { name: string } }).policy.name).toBe("Made by a script");

  await page.reload();
  const row = page.locator('[data-testid="api-token-row"][data-name="ci"]');
  await expect(row).toHaveAttribute("data-status", "active");
  await expect(row.getByTestId("api-token-last-used")).not.toHaveText("never");
  await page.goto("/settings/audit");
  const audited = page.locator('[data-testid="audit-row"][data-action="policy.created"]');
  await expect(audited.getByTestId("audit-api-token")).toHaveText("with API token “ci”");

  await page.goto("/settings/api-tokens");
  await row.getByTestId("revoke-api-token").click();
  await expect(row).toHaveAttribute("data-status", "revoked");
  const refused = await api("/api/servers");
  expect(refused.status).toBe(401);
  expect(refused.headers.get("content-type")).toBe("application/problem+json");
  expect(refused.headers.get("www-authenticate")).toContain("Bearer");
  expect(((await refused.json()) as { detail: string }).detail).toContain("revoked");

  // The document the token's API is described by, and its reference page.
  const document = await fetch(`${e2eStack.consoleUrl}/api/openapi.json`);
  expect(document.status).toBe(200);
  expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
  await page.goto("/api-reference");
  await expect(page.locator('[data-testid="api-operation"][data-operation-id="getServers"]')).toBeVisible();
});
