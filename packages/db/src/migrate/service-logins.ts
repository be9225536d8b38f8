// The services' logins (migration 20261128150100_service_logins) get their passwords from the
// URLs the services are given, so a deployment states each password once: `spindle-db migrate`
// with SPINDLE_CONSOLE_DATABASE_URL, SPINDLE_GATEWAY_DATABASE_URL and SPINDLE_WORKER_DATABASE_URL
// sets them after migrating. The password reaches the server as a SCRAM-SHA-256 verifier, never in
// the clear (a server that logs DDL would otherwise keep it), exactly as psql's \password does.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { MigrationError } from "./errors.js";
import type { MigrationSession } from "./session.js";

/** Each service and the login the migrations create for it. */
export const serviceLogins = {
  console: "spindle_console_login",
  gateway: "spindle_gateway_login",
  worker: "spindle_worker_login",
} as const;
export type Service = keyof typeof serviceLogins;

/** The DATABASE_URL each service runs with; only the ones given are set. */
export type ServiceDatabaseUrls = Partial<Record<Service, string>>;

const scramIterations = 4096;

/** A PostgreSQL SCRAM-SHA-256 password verifier (RFC 5802, RFC 7677) for `password`. */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = scramIterations): string {
  const salted = pbkdf2Sync(Buffer.from(password, "utf8"), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}

// PostgreSQL prepares a password with SASLprep before hashing; for printable ASCII that changes
// nothing, so only such passwords are accepted here (a mismatch would lock the service out).
const printableAscii = /^[\x21-\x7e]+$/;

/** The login and password a service's URL names, checked against the login made for it. */
export function loginFromUrl(service: Service, url: string): { login: string; password: string } {
  const variable = `SPINDLE_${service.toUpperCase()}_DATABASE_URL`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MigrationError(`${variable} is not a URL; set it to postgres://${serviceLogins[service]}:<password>@<host>:5432/<database>`);
  }
  const login = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  if (login !== serviceLogins[service]) {
    throw new MigrationError(
      `${variable} logs in as "${login}"; the ${service} must log in as ${serviceLogins[service]}, the login the migrations ` +
        `create for it (holding only spindle_${service}), never as the owner: set postgres://${serviceLogins[service]}:<password>@…`,
    );
  }
  if (!printableAscii.test(password)) {
    throw new MigrationError(
      `${variable} has ${password ? "a password with characters other than printable ASCII" : "no password"}; ` +
        "use printable ASCII, e.g. `openssl rand -hex 24`, URL-encoded in the URL",
    );
  }
  return { login, password };
}

/** Sets each given service's login password; returns the logins it set. */
export async function setServiceLoginPasswords(session: MigrationSession, urls: ServiceDatabaseUrls): Promise<string[]> {
  const set: string[] = [];
  for (const service of Object.keys(serviceLogins) as Service[]) {
    const url = urls[service];
    if (!url) continue;
    const { login, password } = loginFromUrl(service, url);
    const [exists] = (await session.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_roles WHERE rolname = $1", [login])).rows;
    if (!exists?.n) throw new MigrationError(`there is no role ${login}: the migrations create it; run them first`);
    // ALTER ROLE takes no parameters: both parts are quoted by the server's format().
    const [statement] = (
      await session.query<{ sql: string }>("SELECT format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text) AS sql", [
        login,
        scramVerifier(password),
      ])
    ).rows;
    await session.exec(statement!.sql);
    set.push(login);
  }
  return set;
}
