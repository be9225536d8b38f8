// The only reader of process.env. Parsed once, on first use; instrumentation.ts calls it when the
// server starts so a bad value stops the console with a message saying what to set, instead of
// failing on the first request.
import { z } from "zod";

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
  .transform((value) => value.replace(/\/+$/, ""));

// One IPv4/IPv6 address or CIDR range, e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8; server.ts parses
// them again (lib/client-address.ts, trustedProxies) and refuses a prefix that does not fit.
const ipOrCidr = /^(\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-fA-F:]+:[0-9a-fA-F:.]*(\/\d{1,3})?)$/;

const trustedProxyList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((entry) => ipOrCidr.test(entry)),
    "must be a comma-separated list of IP addresses or CIDR ranges, e.g. 10.0.0.5,10.1.0.0/16",
  );

// An SMTP server as a URL: smtp://user:password@host:587 (STARTTLS when the server offers it;
// `?starttls=required` insists), smtps://user:password@host:465 (TLS from the start).
const smtpUrl = z.preprocess(
  (value) => (value === "" ? undefined : value),
  z
    .string()
    .url()
    .refine(
      (value) => /^smtps?:\/\/[^/]/.test(value),
      "must be smtp://[user:password@]host[:port] or smtps://…, e.g. smtp://mailer:secret@smtp.example.com:587",
    )
    .optional(),
);

// Origins (scheme://host[:port]) of identity providers on private networks that single sign-on
// may reach. Public identity providers need no entry; loopback and private addresses are refused
// unless listed, so an organisation's settings cannot point the console at internal services.
const origins = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim().replace(/\/+$/, ""))
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((entry) => /^https?:\/\/[^/?#]+$/.test(entry)),
    "must be a comma-separated list of origins, e.g. https://idp.corp.example,http://10.0.0.7:8080",
  );

const positiveInteger = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  DATABASE_URL: z
    .string({ error: "is not set: point it at the Spindle PostgreSQL, e.g. postgres://user:pass@host:5432/spindle" })
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL"),
  BETTER_AUTH_SECRET: z
    .string({ error: "is not set: generate one with `openssl rand -base64 32`" })
    .min(32, "must be at least 32 characters: generate one with `openssl rand -base64 32`"),
  SPINDLE_CONSOLE_URL: httpUrl.default("http://localhost:3000"),
  SPINDLE_GATEWAY_URL: httpUrl.default("http://localhost:4318"),
  // Reverse proxies in front of the console. X-Forwarded-For is believed only from these (walked
  // right to left by server.ts); the first untrusted address is the client that sign-in rate
  // limiting and session records use. Empty: the console is reached directly and X-Forwarded-For
  // is ignored.
  SPINDLE_TRUSTED_PROXIES: trustedProxyList,
  // Transactional e-mail (verification, password reset, invitations, security notices). Without
  // an SMTP server the console writes each message as an .eml file into the local mailbox.
  SPINDLE_SMTP_URL: smtpUrl,
  SPINDLE_MAIL_FROM: z.preprocess((value) => (value === "" ? undefined : value), z.string().min(3).optional()),
  SPINDLE_MAILBOX_DIR: z.string().min(1).default(".spindle/mailbox"),
  SPINDLE_SSO_TRUSTED_ISSUERS: origins,
  // Requests per minute one API token may make; beyond it 429 with Retry-After.
  SPINDLE_API_TOKEN_RATE_LIMIT: positiveInteger(600),
});

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")} ${issue.message}`);
    throw new Error(`The Spindle console cannot start; set these environment variables:\n${problems.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Sessions ride in `secure` cookies whenever the console is served over https. */
export function consoleIsHttps(): boolean {
  return env().SPINDLE_CONSOLE_URL.startsWith("https://");
}

/**
 * For DB-backed tests only (see the team's test-database convention): the admin URL and the
 * migrated template each test file copies. `skip` says why tests cannot run here; under CI a
 * missing database is an error instead, so a misconfigured pipeline cannot pass by skipping.
 */
export function testDatabaseEnv(): { adminUrl: string; template: string } | { skip: string } {
  const adminUrl = process.env.SPINDLE_TEST_DATABASE_URL;
  const template = process.env.SPINDLE_TEST_TEMPLATE_DB;
  if (adminUrl && template) return { adminUrl, template };
  const message = 'SPINDLE_TEST_DATABASE_URL and SPINDLE_TEST_TEMPLATE_DB are not set: run `eval "$(bash scripts/test-db.sh start)"` first';
  if (process.env.CI === "true") throw new Error(message);
  return { skip: message };
}
