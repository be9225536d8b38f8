import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { pinnedKeysOf } from "@/test-support/windows-signature";
import { createEnrollmentToken } from "./create-enrollment-token";
import { eccPublicBlob } from "./install-command";
import { listEnrollmentTokens } from "./list-enrollment-tokens";
import { revokeEnrollmentToken } from "./revoke-enrollment-token";

const gatewayUrl = "https://gateway.example.com";
const now = new Date("2026-11-21T10:00:00Z");
const hours = (n: number) => new Date(now.getTime() + n * 3600_000);

describe("enrolment tokens", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: { orgId: string; userId: string };

  before(async () => {
    db = await createTestDatabase();
    owner = await createOrganisation(db.prisma, "Acme");
  });
  after(() => db?.drop());

  it("returns the secret once and stores only its SHA-256 and a hint", async () => {
    const created = await createEnrollmentToken(db, owner, { label: "db01", expiresIn: "1h" }, { gatewayUrl, now });
    assert.match(created.token, /^spe_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.hint, created.token.slice(-4));

    const row = await db.prisma.enrollmentToken.findUniqueOrThrow({ where: { id: created.id } });
    assert.deepEqual(Buffer.from(row.tokenHash), createHash("sha256").update(created.token).digest());
    const stored = (await db.pool.query("SELECT row_to_json(t)::text AS json FROM enrollment_tokens t WHERE id = $1", [created.id])).rows[0]
      .json;
    assert.ok(!stored.includes(created.token.slice(4)), "the secret itself is not stored anywhere in the row");

    const listed = await listEnrollmentTokens(db, owner.orgId, now);
    const summary = listed.find((token) => token.id === created.id);
    assert.ok(summary);
    assert.ok(!("token" in summary), "lists never carry the secret");
  });

  it("puts the token in the install one-liner for the gateway", async () => {
    const created = await createEnrollmentToken(db, owner, {}, { gatewayUrl, now });
    assert.equal(
      created.installCommand,
      `script=$(curl -fsSL ${gatewayUrl}/install.sh) && printf '%s\\n' '${created.token}' | sh -c "$script" spindle-install --token-stdin`,
    );
    assert.ok(!created.installCommand.includes("--token "), "the token must not be an argument");
  });

  // Issue 25, L4: the Windows command pins the P-256 keys gateways recorded in the last week.
  it("pins the keys gateways recorded recently in the Windows command, and offers none before a gateway recorded one", async () => {
    const before = await createEnrollmentToken(db, owner, {}, { gatewayUrl, now });
    assert.equal(before.windowsInstallCommand, null, "no gateway has recorded a key: nothing it could check");
    const point = (fill: number) => Buffer.concat([Buffer.from([4]), Buffer.alloc(64, fill)]);
    await db.pool.query(
      `INSERT INTO gateway_signing_keys (algorithm, public_key, last_seen_at) VALUES
      ('ecdsa-p256', $1, now()), ('ecdsa-p256', $2, now() - interval '1 day'), ('ecdsa-p256', $3, now() - interval '30 days')`,
      [point(1), point(2), point(3)],
    );
    const created = await createEnrollmentToken(db, owner, {}, { gatewayUrl, now });
    const pinned = pinnedKeysOf(created.windowsInstallCommand!);
    assert.deepEqual(
      pinned,
      [eccPublicBlob(point(1)).toString("base64"), eccPublicBlob(point(2)).toString("base64")],
      "the current key first, the one rotated out yesterday still accepted, the month-old one dropped",
    );
    assert.ok(created.windowsInstallCommand!.includes(`'${created.token}' | & $f install`));
  });

  it("expires after the chosen lifetime, 24 h by default", async () => {
    const cases = [
      ["1h", 1],
      ["24h", 24],
      ["7d", 168],
    ] as const;
    for (const [expiresIn, lifetimeHours] of cases) {
      const created = await createEnrollmentToken(db, owner, { expiresIn }, { gatewayUrl, now });
      assert.equal(created.expiresAt, hours(lifetimeHours).toISOString(), expiresIn);
    }
    const byDefault = await createEnrollmentToken(db, owner, {}, { gatewayUrl, now });
    assert.equal(byDefault.expiresAt, hours(24).toISOString());
    const later = await listEnrollmentTokens(db, owner.orgId, hours(25));
    assert.equal(later.find((token) => token.id === byDefault.id)?.status, "expired");
  });

  it("rejects an unknown lifetime", async () => {
    await assert.rejects(createEnrollmentToken(db, owner, { expiresIn: "30d" as "7d" }, { gatewayUrl, now }));
  });

  it("revokes once, keeps the token listed, and records create and revoke in the audit log", async () => {
    const created = await createEnrollmentToken(db, owner, { label: "web" }, { gatewayUrl, now });
    const revoked = await revokeEnrollmentToken(db, owner, created.id, hours(1));
    assert.equal(revoked.status, "revoked");
    assert.equal(revoked.revokedAt, hours(1).toISOString());
    const again = await revokeEnrollmentToken(db, owner, created.id, hours(2));
    assert.equal(again.revokedAt, hours(1).toISOString(), "a second revoke changes nothing");

    const audit = await db.prisma.auditLog.findMany({ where: { orgId: owner.orgId, target: created.id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      audit.map((entry) => [entry.action, entry.actorId]),
      [
        ["enrollment_token.created", owner.userId],
        ["enrollment_token.revoked", owner.userId],
      ],
    );
  });

  it("answers not found for a token id that does not exist", async () => {
    await assert.rejects(revokeEnrollmentToken(db, owner, "00000000-0000-4000-8000-000000000000"), { status: 404 });
  });
});
