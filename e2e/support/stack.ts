// Where the e2e stack runs, and its own database: a fresh copy of the migrated template that
// scripts/test-db.sh prepared. Evaluated by Playwright in the runner and in every worker, so the
// database is created once and its name handed down through the environment.
import { execFileSync } from "node:child_process";
import { journeyReleases } from "./built-releases";
import { mailPorts } from "./mail-ports";
import { identityProviderPort } from "./oidc-idp";

// Overridable so that several checkouts can run their journeys on one machine at once.
const consolePort = Number(process.env.SPINDLE_E2E_CONSOLE_PORT ?? 3100);
const gatewayPort = Number(process.env.SPINDLE_E2E_GATEWAY_PORT ?? 4400);

function e2eDatabaseUrl(): string {
  if (process.env.SPINDLE_E2E_DATABASE_URL) return process.env.SPINDLE_E2E_DATABASE_URL;
  const admin = process.env.SPINDLE_TEST_DATABASE_URL;
  const template = process.env.SPINDLE_TEST_TEMPLATE_DB;
  if (!admin || !template) {
    throw new Error('The e2e journeys need the test database: run eval "$(bash scripts/test-db.sh start)" first.');
  }
  const name = `spindle_e2e_${Date.now()}`;
  execFileSync("psql", [admin, "-qAtc", `CREATE DATABASE ${name} TEMPLATE ${template}`]);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  process.env.SPINDLE_E2E_DATABASE_URL = url.toString();
  return url.toString();
}

const databaseUrl = e2eDatabaseUrl();
const releases = journeyReleases();

export const e2eStack = {
  consoleUrl: `http://localhost:${consolePort}`,
  gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
  databaseUrl,
  releases,
  env: {
    DATABASE_URL: databaseUrl,
    SPINDLE_CONSOLE_PORT: String(consolePort),
    SPINDLE_GATEWAY_PORT: String(gatewayPort),
    SPINDLE_CONSOLE_URL: `http://localhost:${consolePort}`,
    // No SPINDLE_PUBLIC_GATEWAY_URL: agents are told what `npm start` tells them by default,
    // http://<hostname>:<port>, so the journeys run the command a new user gets.
    BETTER_AUTH_SECRET: "e2e-secret-that-is-long-enough-for-better-auth-0123",
    // The journeys' webhook receivers listen on loopback over plain http.
    SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: "true",
    // Recommendations refresh every 5 s instead of every 15 min, so a journey sees its finding.
    SPINDLE_RECOMMENDATION_REFRESH_SECONDS: "5",
    // Rollouts are stepped every second, and a guard window read 3 s after it ends (the journey
    // ends windows early through the database; the product's minimum window stays 5 minutes).
    SPINDLE_ROLLOUT_STEP_SECONDS: "1",
    SPINDLE_ROLLOUT_SETTLE_SECONDS: "3",
    // Agent upgrades: the built release and the next patch version (support/built-releases.ts),
    // stepped every second by the worker instead of every 15 s.
    SPINDLE_AGENT_DIST_DIR: releases.dir,
    SPINDLE_UPGRADE_INTERVAL_SECONDS: "1",
    // The console's mail goes to the journeys' SMTP server (support/mail-sink.ts), and single
    // sign-on may reach the OpenID provider a journey runs on loopback (support/oidc-idp.ts).
    SPINDLE_SMTP_URL: `smtp://127.0.0.1:${mailPorts().smtpPort}`,
    SPINDLE_MAIL_FROM: "Spindle <spindle@e2e.test>",
    SPINDLE_SSO_TRUSTED_ISSUERS: `http://127.0.0.1:${identityProviderPort()}`,
  },
};
