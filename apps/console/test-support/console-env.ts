// For tests that run the console's own singletons (database(), auth(), the mailer): point them
// at the test's database, as its console login, with a throwaway mailbox. Call before the first
// import of anything that reads the environment (it is parsed once).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestDatabase } from "./test-database";

export function useConsoleEnvironment(db: TestDatabase, extra: Record<string, string> = {}): void {
  Object.assign(process.env, {
    DATABASE_URL: db.consoleUrl,
    BETTER_AUTH_SECRET: "console-test-secret-that-is-long-enough-0123456789",
    SPINDLE_CONSOLE_URL: "http://localhost:3000",
    SPINDLE_MAILBOX_DIR: join(mkdtempSync(join(tmpdir(), "spindle-console-test-")), "mailbox"),
    ...extra,
  });
}
