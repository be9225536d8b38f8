// Recommendations in the console against a real database, called as the console's login: the
// list with its evidence and prediction, Apply saving a policy version through the policies
// module (a new server policy, or the next version of the server's own), a change that would
// make the merged policy invalid refused with nothing stored, dismiss / snooze / reopen
// remembered and audited, viewers reading only, and another organisation's recommendation
// answering 404 to every action.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { flashTierFinding, readCacheBudgetFinding, scanDropBehindFindings, type RecommendationFinding } from "@spindle/domain";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createPolicy } from "@/modules/policies/lib/create-policy";
import { assignPolicy } from "@/modules/policies/lib/assign-policy";
import { getPolicy } from "@/modules/policies/lib/get-policy";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";
import type { RecommendationActor } from "./authorise";
import { applyRecommendation } from "./apply-recommendation";
import { listRecommendations } from "./list-recommendations";
import { dismissRecommendation, reopenRecommendation, snoozeRecommendation } from "./set-status";

const gib = 1024 ** 3;
const mib = 1024 ** 2;
const from = new Date("2026-11-16T00:00:00Z");
const to = new Date("2026-11-23T00:00:00Z");

function budgetFinding(serverId: string, currentBudgetBytes: number, sizes = [1, 2, 4, 6, 8].map((g) => g * gib)): RecommendationFinding {
  return readCacheBudgetFinding({
    serverId,
    curve: {
      curve: "read_cache",
      scope: "",
      sampleRate: 0.01,
      sampledAccesses: 200_000,
      windowFrom: from,
      windowTo: to,
      sizesBytes: sizes,
      hitRatios: [0.4, 0.61, 0.8, 0.88, 0.885],
    },
    readCache: { enabled: true, freeMemoryFloorBytes: 512 * mib, scanResistanceThresholdBytes: 128 * mib },
    currentBudgetBytes,
    availableMemory: { p5Bytes: 9.5 * gib, samples: 1000, from, to },
  })!;
}

describe("recommendations", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: RecommendationActor;
  let viewer: RecommendationActor;
  let rival: RecommendationActor;

  async function store(orgId: string, finding: RecommendationFinding): Promise<string> {
    const row = await db.prisma.recommendation.create({
      data: {
        orgId,
        serverId: finding.serverId,
        kind: finding.kind,
        subject: finding.subject,
        title: finding.title,
        steps: finding.steps,
        change: finding.change ?? undefined,
        evidence: finding.evidence,
        prediction: finding.prediction,
        confidence: finding.confidence,
      },
    });
    return row.id;
  }

  before(async () => {
    db = await createTestDatabase();
    owner = { ...(await createOrganisation(db.prisma, "Acme")), role: "owner" };
    rival = { ...(await createOrganisation(db.prisma, "Rival")), role: "owner" };
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `viewer-${suffix}`, name: "Vi", email: `vi-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: owner.orgId, userId: user.id, role: "viewer" } });
    viewer = { orgId: owner.orgId, userId: user.id, role: "viewer" };
  });
  after(async () => {
    await db?.drop();
  });

  it("lists a recommendation with its evidence link, prediction and confidence, to its organisation only", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-list");
    await store(owner.orgId, budgetFinding(server.id, 2 * gib));
    const [view] = await listRecommendations(db, viewer.orgId, { serverId: server.id });
    assert.equal(view!.hostname, "db-list");
    assert.equal(view!.status, "open");
    assert.equal(view!.change, "readCache.budgetBytes = 6442450944");
    assert.equal(view!.prediction.after, 0.88);
    assert.equal(view!.confidence.level, "high");
    assert.equal(
      view!.evidenceHref,
      `/servers/${server.id}?from=2026-11-16T00%3A00%3A00.000Z&to=2026-11-23T00%3A00%3A00.000Z#miss-ratio-curves`,
    );
    assert.deepEqual(await listRecommendations(db, rival.orgId), []);
  });

  it("applies a budget to a server without a policy of its own: a new server policy, version 1, assigned and audited", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-new");
    const id = await store(owner.orgId, budgetFinding(server.id, 2 * gib));
    const applied = await applyRecommendation(db, owner, id);
    assert.equal(applied.status, "applied");
    assert.equal(applied.applied?.policyName, "db-new (recommendations)");
    assert.equal(applied.applied?.version, 1);
    const policy = await getPolicy(db, owner.orgId, applied.applied!.policyId!);
    assert.deepEqual(policy.versions[0]!.document, { schemaVersion: 1, readCache: { budgetBytes: 6 * gib } });
    assert.match(policy.versions[0]!.comment, /^Recommendation: Raise the read-cache budget from 2 GiB to 6 GiB/);
    const effective = await getServerPolicy(db, owner.orgId, server.id);
    assert.equal(effective.effective.ok && effective.effective.policy.readCache.budgetBytes, 6 * gib);
    const audit = await db.prisma.auditLog.findMany({
      where: { orgId: owner.orgId },
      orderBy: { id: "asc" },
      select: { action: true, target: true },
    });
    assert.deepEqual(
      audit.slice(-3).map((a) => a.action),
      ["policy.created", "policy.assigned", "recommendation.applied"],
    );
    await assert.rejects(applyRecommendation(db, owner, id), { status: 409 });
  });

  it("saves the next version of the server's own policy, keeping its fields and repeating the inherited include list", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-own");
    const policy = await createPolicy(db, owner, {
      name: "db-own tuning",
      document: { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"], prefetch: true } },
    });
    await assignPolicy(db, owner, { scope: "server", serverId: server.id, policyId: policy.id });
    const [scan] = scanDropBehindFindings({
      serverId: server.id,
      readCache: { enabled: true, scanResistanceThresholdBytes: 128 * mib },
      topFiles: [{ path: "/srv/backup/full.tar", accesses: 50_000, misses: 49_000, intervalSeconds: 10, seenAt: to, managed: false }],
    });
    const applied = await applyRecommendation(db, owner, await store(owner.orgId, scan!));
    assert.equal(applied.applied?.policyId, policy.id);
    assert.equal(applied.applied?.version, 2);
    const versions = (await getPolicy(db, owner.orgId, policy.id)).versions;
    assert.deepEqual(versions[0]!.document, {
      schemaVersion: 1,
      readCache: { enabled: true, include: ["/srv/db/**", "/srv/backup/full.tar"], prefetch: true },
    });
  });

  it("refuses a change the merged policy would not accept, and one no policy can make, storing nothing", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-small");
    // a 64 MiB budget is below the default 128 MiB scan-resistance threshold
    const small = { ...budgetFinding(server.id, 2 * gib), change: { type: "set_read_cache_budget" as const, budgetBytes: 64 * mib } };
    const id = await store(owner.orgId, small);
    await assert.rejects(applyRecommendation(db, owner, id), (error: { status: number; extra: { errors: { path: string }[] } }) => {
      assert.equal(error.status, 422);
      assert.equal(error.extra.errors[0]!.path, "readCache.scanResistanceThresholdBytes");
      return true;
    });
    assert.equal(await db.prisma.policy.count({ where: { orgId: owner.orgId, name: "db-small (recommendations)" } }), 0);
    assert.equal((await db.prisma.recommendation.findUniqueOrThrow({ where: { id } })).status, "open");

    const flash = flashTierFinding(server.id, "nvme0n1", {
      sizesBytes: [16 * gib, 64 * gib],
      hitRatios: [0.3, 0.6],
      sampleRate: 0.01,
      sampledAccesses: 50_000,
      windowFrom: from,
      windowTo: to,
    })!;
    await assert.rejects(
      applyRecommendation(db, owner, await store(owner.orgId, flash)),
      /No policy can make this change; do it on the server: Put a flash cache/,
    );
  });

  it("remembers dismiss, snooze and reopen with who and when, in the audit log", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-status");
    const id = await store(owner.orgId, budgetFinding(server.id, 2 * gib));
    const now = new Date("2026-11-23T12:00:00Z");
    assert.equal((await dismissRecommendation(db, owner, id, now)).status, "dismissed");
    const snoozed = await snoozeRecommendation(db, owner, id, { days: 7 }, now);
    assert.equal(snoozed.status, "snoozed");
    assert.equal(snoozed.snoozedUntil, "2026-11-30T12:00:00.000Z");
    assert.equal(snoozed.statusChangedBy, "Acme owner");
    assert.equal((await reopenRecommendation(db, owner, id, now)).status, "open");
    const actions = await db.prisma.auditLog.findMany({ where: { orgId: owner.orgId, target: id }, orderBy: { id: "asc" } });
    assert.deepEqual(
      actions.map((a) => a.action),
      ["recommendation.dismissed", "recommendation.snoozed", "recommendation.reopened"],
    );
    assert.deepEqual(actions[1]!.details, { title: "Raise the read-cache budget from 2 GiB to 6 GiB", until: "2026-11-30T12:00:00.000Z" });
  });

  it("lets viewers read only, and answers 404 for another organisation's recommendation", async () => {
    const server = await createServer(db.prisma, owner.orgId, "db-walls");
    const id = await store(owner.orgId, budgetFinding(server.id, 2 * gib));
    await assert.rejects(applyRecommendation(db, viewer, id), { status: 403 });
    await assert.rejects(dismissRecommendation(db, viewer, id), { status: 403 });
    await assert.rejects(applyRecommendation(db, rival, id), { status: 404 });
    await assert.rejects(dismissRecommendation(db, rival, id), { status: 404 });
    await assert.rejects(snoozeRecommendation(db, rival, id, { days: 1 }), { status: 404 });
    await assert.rejects(applyRecommendation(db, owner, "not-a-uuid"), { status: 404 });
    assert.equal((await db.prisma.recommendation.findUniqueOrThrow({ where: { id } })).status, "open");
  });
});
