// An operation called for organisation B must not see organisation A's servers, telemetry or
// tokens, and must answer exactly as if they did not exist (404, never 403).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createEnrollmentToken } from "@/modules/enrollment/lib/create-enrollment-token";
import { listEnrollmentTokens } from "@/modules/enrollment/lib/list-enrollment-tokens";
import { revokeEnrollmentToken } from "@/modules/enrollment/lib/revoke-enrollment-token";
import { queryServerMetrics } from "@/modules/metrics/lib/query-server-metrics";
import { getServer } from "./get-server";
import { fleetQuerySchema } from "../types/fleet-query";
import { queryFleet } from "./query-fleet";

describe("tenant scoping", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgA: { orgId: string; userId: string };
  let orgB: { orgId: string; userId: string };
  let serverOfA: { id: string };
  let tokenOfA: { id: string };

  before(async () => {
    db = await createTestDatabase();
    orgA = await createOrganisation(db.prisma, "Alpha");
    orgB = await createOrganisation(db.prisma, "Beta");
    serverOfA = await createServer(db.prisma, orgA.orgId, "alpha-db01", new Date());
    await db.pool.query(
      `INSERT INTO disk_io VALUES (now() - interval '1 minute', $1, $2, 'sda', 10, 100, 0, 4096, 0, 0, 0, 5, 0, 10, 10, 0)`,
      [orgA.orgId, serverOfA.id],
    );
    tokenOfA = await createEnrollmentToken(db, orgA, { label: "alpha" }, { gatewayUrl: "http://gw" });
  });
  after(() => db?.drop());

  it("lets the owning organisation read its server and metrics", async () => {
    assert.equal((await getServer(db, orgA.orgId, serverOfA.id)).hostname, "alpha-db01");
    const metrics = await queryServerMetrics(db, orgA.orgId, serverOfA.id, "1h");
    assert.equal(metrics.devices[0]?.readIops[0], 10);
  });

  it("hides another organisation's server from lists and answers 404 by id", async () => {
    assert.deepEqual((await queryFleet(db, orgB.orgId, fleetQuerySchema.parse({ q: "alpha", group: "tag" }))).servers, []);
    await assert.rejects(getServer(db, orgB.orgId, serverOfA.id), { status: 404 });
  });

  it("answers 404 for another organisation's metrics, for every range", async () => {
    for (const range of ["1h", "24h", "7d"] as const) {
      await assert.rejects(queryServerMetrics(db, orgB.orgId, serverOfA.id, range), { status: 404 });
    }
  });

  it("keeps tokens to their organisation: not listed, not revocable", async () => {
    assert.deepEqual(await listEnrollmentTokens(db, orgB.orgId), []);
    await assert.rejects(revokeEnrollmentToken(db, orgB, tokenOfA.id), { status: 404 });
    const row = await db.prisma.enrollmentToken.findUniqueOrThrow({ where: { id: tokenOfA.id } });
    assert.equal(row.revokedAt, null, "the failed revoke changed nothing");
  });

  it("treats a malformed id as not found rather than a server error", async () => {
    await assert.rejects(getServer(db, orgA.orgId, "../etc/passwd"), { status: 404 });
  });
});
