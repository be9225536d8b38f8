// Proof runs against a real database: request, one active run per server, cancel, roles,
// tenant isolation, the audit trail, and the notification the gateways listen for.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { startRunInput } from "../types/proof-run";
import { getServerOffer } from "./profiles";
import { cancelRun, getRun, listRuns, startRun, type RunActor } from "./runs";

const request = startRunInput.parse({
  profile: "fileserver",
  dataPath: "/srv/proof",
  sizeLimitMiB: 8,
  timeLimitSeconds: 60,
  stepSeconds: 1,
});
const offered = {
  proofRuns: {
    profiles: [{ name: "fileserver", description: "IOmeter file-server mix", kind: "generator", source: "SEED-FACTS.md", steps: 4 }],
    paths: ["/srv/proof"],
  },
};

describe("proof runs", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: RunActor;
  let viewer: RunActor;
  let rival: RunActor;
  let serverId: string;

  async function enrolledServer(orgId: string, hostname: string, capabilities: object = offered) {
    const server = await createServer(db.prisma, orgId, hostname);
    await db.prisma.agent.create({ data: { orgId, serverId: server.id, credentialHash: Buffer.from(randomUUID()), capabilities } });
    return server.id;
  }

  before(async () => {
    db = await createTestDatabase();
    owner = { ...(await createOrganisation(db.prisma, "Acme")), role: "owner" };
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `viewer-${suffix}`, name: "Vic", email: `vic-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: owner.orgId, userId: user.id, role: "viewer" } });
    viewer = { orgId: owner.orgId, userId: user.id, role: "viewer" };
    rival = { ...(await createOrganisation(db.prisma, "Rival")), role: "owner" };
    serverId = await enrolledServer(owner.orgId, "db-01");
  });
  after(async () => db?.drop());

  it("lists the profiles and directories the agent offered", async () => {
    const offer = await getServerOffer(db, owner.orgId, serverId);
    assert.deepEqual(
      offer.profiles.map((p) => p.name),
      ["fileserver"],
    );
    assert.deepEqual(offer.paths, ["/srv/proof"]);
    assert.deepEqual(await getServerOffer(db, rival.orgId, serverId), { profiles: [], paths: [] }, "another organisation sees none");
  });

  it("queues a run, announces it to gateways and audits it; a second waits for the first", async () => {
    const listener = await db.pool.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(message.payload ?? ""));
    await listener.query("LISTEN spindle_proof_run_changed");
    const run = await startRun(db, owner, serverId, request);
    assert.equal(run.status, "queued");
    assert.deepEqual(run.parameters?.paths, ["/srv/proof"]);
    await listener.query("SELECT 1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    listener.release();
    assert.deepEqual(
      heard.map((payload) => JSON.parse(payload)),
      [{ serverId, runId: run.id, status: "queued" }],
    );

    await assert.rejects(startRun(db, owner, serverId, request), /already has a proof run/);
    const audit = await listAuditLog(db, owner.orgId, {});
    assert.ok(audit.entries.some((entry) => entry.action === "proof_run.requested" && entry.target === run.id));

    const cancelled = await cancelRun(db, owner, run.id);
    assert.equal(cancelled.status, "cancelled", "a queued run is cancelled at once");
    await assert.rejects(cancelRun(db, owner, run.id), /nothing to cancel/);
  });

  it("asks the agent to stop a running run", async () => {
    const run = await startRun(db, owner, serverId, request);
    await db.prisma.proofRun.update({ where: { id: run.id }, data: { status: "running", startedAt: new Date(), heartbeatAt: new Date() } });
    const cancelling = await cancelRun(db, owner, run.id);
    assert.equal(cancelling.status, "cancelling");
    const audit = await listAuditLog(db, owner.orgId, {});
    assert.ok(audit.entries.some((entry) => entry.action === "proof_run.cancelled" && entry.target === run.id));
    await db.prisma.proofRun.update({ where: { id: run.id }, data: { status: "cancelled", finishedAt: new Date() } });
  });

  it("says which runs hold a report: a succeeded run's, and a stopped run's partial one", async () => {
    const stopped = await startRun(db, owner, serverId, request);
    await db.prisma.proofRun.update({
      where: { id: stopped.id },
      data: { status: "cancelled", finishedAt: new Date(), report: { complete: false, steps: [] } },
    });
    const bare = await startRun(db, owner, serverId, request);
    await db.prisma.proofRun.update({ where: { id: bare.id }, data: { status: "failed", finishedAt: new Date(), error: "refused" } });
    const runs = await listRuns(db, owner.orgId, serverId);
    assert.equal(runs.find((run) => run.id === stopped.id)?.hasReport, true);
    assert.equal(runs.find((run) => run.id === bare.id)?.hasReport, false);
    assert.equal((await getRun(db, owner.orgId, stopped.id)).hasReport, true);
  });

  it("lets viewers look but not start or cancel", async () => {
    await assert.rejects(startRun(db, viewer, serverId, request), /can view proof runs but not start/);
    const runs = await listRuns(db, viewer.orgId, serverId);
    assert.ok(runs.length >= 2);
    await assert.rejects(cancelRun(db, viewer, runs[0]!.id), /not cancel/);
  });

  it("keeps runs inside their organisation", async () => {
    const [run] = await listRuns(db, owner.orgId, serverId);
    await assert.rejects(getRun(db, rival.orgId, run!.id), /does not exist in your organisation/);
    await assert.rejects(cancelRun(db, rival, run!.id), /does not exist in your organisation/);
    await assert.rejects(listRuns(db, rival.orgId, serverId), /does not exist/);
    await assert.rejects(startRun(db, rival, serverId, request), /does not exist/);
    assert.equal((await getRun(db, owner.orgId, run!.id)).hostname, "db-01");
  });

  it("refuses a profile the agent did not offer, and a server without profiles says why", async () => {
    await assert.rejects(startRun(db, owner, serverId, { ...request, profile: "pgbench" }), /offers fileserver/);
    await assert.rejects(startRun(db, owner, serverId, { ...request, dataPath: "/etc" }), /allows proof runs in \/srv\/proof only/);
    await assert.rejects(startRun(db, owner, serverId, { ...request, logPath: "/var/log" }), /allows proof runs in \/srv\/proof only/);
    const silent = await enrolledServer(owner.orgId, "db-02", {});
    await assert.rejects(startRun(db, owner, silent, request), /has not offered any proof-run profiles/);
  });
});
