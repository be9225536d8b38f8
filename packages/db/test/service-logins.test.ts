// Migration 20261128150100_service_logins and `spindle-db migrate`'s passwords: each service has a
// login of its own holding only its role, none able to skip row-level security, and migrate sets
// each login's password from the URL the service is given, as a SCRAM verifier PostgreSQL accepts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { loginFromUrl, migrate, scramVerifier } from "../src/migrate/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";

const skip = testDatabaseSkipReason();
const services = ["console", "gateway", "worker"] as const;

describe("the services' logins", { skip }, () => {
  let db: TestDatabase;
  let admin: pg.Client;

  before(async () => {
    db = await createTestDatabase({ label: "service_logins" });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await db?.drop();
  });

  it("exist for each service, hold only that service's role, and cannot skip row-level security", async () => {
    for (const service of services) {
      const login = `spindle_${service}_login`;
      const {
        rows: [role],
      } = await admin.query(
        "SELECT rolcanlogin, rolsuper, rolbypassrls, rolcreaterole, rolcreatedb, rolinherit FROM pg_roles WHERE rolname = $1",
        [login],
      );
      assert.deepEqual(
        role,
        { rolcanlogin: true, rolsuper: false, rolbypassrls: false, rolcreaterole: false, rolcreatedb: false, rolinherit: true },
        login,
      );
      const { rows } = await admin.query(
        `SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
        WHERE m.member = $1::regrole ORDER BY 1`,
        [login],
      );
      assert.deepEqual(
        rows.map((r) => r.rolname),
        [`spindle_${service}`],
        `${login} holds only spindle_${service}`,
      );
      const {
        rows: [owner],
      } = await admin.query("SELECT count(*)::int AS n FROM pg_class WHERE relowner = $1::regrole", [login]);
      assert.equal(owner.n, 0, `${login} owns no table`);
    }
  });

  it("run under row-level security: a query outside any organisation sees no tenant row", async () => {
    await admin.query(`INSERT INTO organizations (id, name, slug) VALUES ('org-l', 'l', 'l')`);
    await admin.query(`INSERT INTO servers (org_id, machine_id, hostname, os) VALUES ('org-l', 'm', 'h', 'linux')`);
    for (const service of ["console", "worker"] as const) {
      const url = new URL(db.url);
      url.username = `spindle_${service}_login`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const {
          rows: [state],
        } = await client.query(
          "SELECT current_user AS login, row_security_active('servers') AS rls, (SELECT count(*)::int FROM servers) AS servers",
        );
        assert.deepEqual(state, { login: `spindle_${service}_login`, rls: true, servers: 0 });
      } finally {
        await client.end();
      }
    }
  });

  it("get the password of the URL their service is given, as a verifier PostgreSQL itself would make", async () => {
    const url = (service: string, password: string) => {
      const u = new URL(db.url);
      u.username = `spindle_${service}_login`;
      u.password = password;
      return u.toString();
    };
    const lines: string[] = [];
    await migrate(db.url, {
      serviceDatabaseUrls: { console: url("console", "c0nsole-secret"), gateway: url("gateway", "g%40teway") },
      log: (line) => lines.push(line),
    });
    assert.ok(lines.includes("set the password of spindle_console_login from its service's URL"), lines.join("\n"));
    assert.ok(lines.includes("set the password of spindle_gateway_login from its service's URL"), lines.join("\n"));
    for (const [login, password] of [
      ["spindle_console_login", "c0nsole-secret"],
      ["spindle_gateway_login", "g@teway"],
    ] as const) {
      const {
        rows: [{ stored }],
      } = await admin.query("SELECT rolpassword AS stored FROM pg_authid WHERE rolname = $1", [login]);
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
      assert.equal(scramVerifier(password, Buffer.from(salt!, "base64"), Number(iterations)), stored, login);
    }
  });

  it("compute the verifier exactly as PostgreSQL does", async () => {
    // PostgreSQL makes a verifier with a random salt; ours, from the same salt, must be identical.
    const role = `spindle_scram_probe_${process.pid}`;
    await admin.query(`CREATE ROLE ${role}`);
    try {
      await admin.query("SET password_encryption = 'scram-sha-256'");
      await admin.query(`ALTER ROLE ${role} PASSWORD 'Correct-Horse-42'`);
      const {
        rows: [{ stored }],
      } = await admin.query("SELECT rolpassword AS stored FROM pg_authid WHERE rolname = $1", [role]);
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored)!;
      assert.equal(scramVerifier("Correct-Horse-42", Buffer.from(salt!, "base64"), Number(iterations)), stored);
    } finally {
      await admin.query(`DROP ROLE ${role}`);
    }
  });

  it("refuse a service URL that names another login, or a password PostgreSQL would prepare differently", () => {
    assert.throws(
      () => loginFromUrl("console", "postgres://spindle:pw@db/spindle"),
      /SPINDLE_CONSOLE_DATABASE_URL logs in as "spindle"; the console must log in as spindle_console_login/,
    );
    assert.throws(
      () => loginFromUrl("worker", "postgres://spindle_worker_login@db/spindle"),
      /SPINDLE_WORKER_DATABASE_URL has no password/,
    );
    assert.throws(() => loginFromUrl("gateway", "postgres://spindle_gateway_login:%C3%A9t%C3%A9@db/spindle"), /printable ASCII/);
    assert.deepEqual(loginFromUrl("gateway", "postgres://spindle_gateway_login:a%2Fb@db/spindle"), {
      login: "spindle_gateway_login",
      password: "a/b",
    });
  });
});
