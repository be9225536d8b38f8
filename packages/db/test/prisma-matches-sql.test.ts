// Proves prisma/schema.prisma matches the SQL migration: every model creates and reads a row
// (every column, relations included) against a database migrated by our runner. A column Prisma
// expects but the SQL lacks, or a type mismatch, fails here rather than in the console.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createPrisma, type PrismaClient } from "../src/index.js";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "../src/testing.js";

describe("the Prisma schema matches the SQL migrations", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let prisma: PrismaClient;

  before(async () => {
    db = await createTestDatabase({ label: "prisma" });
    prisma = createPrisma(db.url);
  });
  after(async () => {
    await prisma?.$disconnect();
    await db?.drop();
  });

  it("creates and reads a row of every model", async () => {
    const later = new Date(Date.now() + 3_600_000);
    const user = await prisma.user.create({
      data: { id: "user-1", name: "Ada", email: "ada@example.com", image: "https://example.com/a.png" },
    });
    const inviter = await prisma.user.create({ data: { id: "user-2", name: "Grace", email: "grace@example.com" } });
    const org = await prisma.organization.create({ data: { id: "org-1", name: "Acme", slug: "acme", logo: null, metadata: "{}" } });

    await prisma.session.create({
      data: {
        id: "session-1",
        userId: user.id,
        token: "tok",
        expiresAt: later,
        ipAddress: "127.0.0.1",
        userAgent: "test",
        activeOrganizationId: org.id,
      },
    });
    await prisma.account.create({
      data: {
        id: "account-1",
        userId: user.id,
        accountId: user.id,
        providerId: "credential",
        password: "argon2id$hash",
        accessToken: "a",
        refreshToken: "r",
        idToken: "i",
        accessTokenExpiresAt: later,
        refreshTokenExpiresAt: later,
        scope: "openid",
      },
    });
    await prisma.verification.create({ data: { id: "verification-1", identifier: "ada@example.com", value: "123456", expiresAt: later } });
    await prisma.member.create({ data: { id: "member-1", organizationId: org.id, userId: user.id, role: "owner" } });
    await prisma.invitation.create({
      data: {
        id: "invitation-1",
        organizationId: org.id,
        email: "new@example.com",
        role: "viewer",
        expiresAt: later,
        inviterId: inviter.id,
      },
    });
    await prisma.user.update({ where: { id: user.id }, data: { twoFactorEnabled: true } });
    await prisma.session.update({ where: { id: "session-1" }, data: { signInMethod: "password+totp" } });
    await prisma.organization.update({ where: { id: org.id }, data: { requireMfa: true } });
    await prisma.twoFactor.create({
      data: {
        id: "two-factor-1",
        userId: user.id,
        secret: "sealed",
        backupCodes: "sealed",
        verified: true,
        failedVerificationCount: 1,
        lockedUntil: later,
      },
    });
    await prisma.apikey.create({
      data: {
        id: "api-token-1",
        name: "ci",
        start: "spk_abcd",
        prefix: "spk_",
        referenceId: org.id,
        key: "hash",
        rateLimitTimeWindow: 60_000,
        rateLimitMax: 600,
        lastRequest: new Date(),
        expiresAt: later,
        metadata: JSON.stringify({ role: "viewer", createdBy: user.id }),
      },
    });
    await prisma.ssoProvider.create({
      data: {
        id: "sso-1",
        issuer: "https://idp.example.com",
        oidcConfig: "{}",
        userId: user.id,
        providerId: "org-1",
        organizationId: org.id,
        domain: "example.com",
        defaultRole: "admin",
        enforced: true,
      },
    });
    await assert.rejects(
      prisma.ssoProvider.create({
        data: {
          id: "sso-2",
          issuer: "https://idp.example.com",
          userId: user.id,
          providerId: "org-1b",
          organizationId: org.id,
          domain: "example.com",
        },
      }),
      "one provider per organisation",
    );
    const token = await prisma.enrollmentToken.create({
      data: {
        orgId: org.id,
        label: "rack 4",
        tokenHash: Buffer.from("a".repeat(32)),
        tokenHint: "…abcd",
        createdBy: user.id,
        expiresAt: later,
      },
    });
    const server = await prisma.server.create({
      data: {
        orgId: org.id,
        machineId: "machine-1",
        hostname: "db-01",
        os: "linux",
        osVersion: "Debian GNU/Linux 12 (bookworm)",
        kernel: "6.1.0",
        arch: "amd64",
        agentVersion: "0.1.0",
        tags: ["prod", "db"],
        lastSeenAt: new Date(),
      },
    });
    await prisma.agent.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        credentialHash: Buffer.from("b".repeat(32)),
        enrollmentTokenId: token.id,
        batchHwm: 9_007_199_254_740_993n,
        capabilities: { ebpf: false, collectors: ["diskstats"] },
      },
    });
    await prisma.auditLog.create({
      data: { orgId: org.id, actorId: user.id, action: "server.enrolled", target: server.id, details: { via: "token" } },
    });
    const policy = await prisma.policy.create({
      data: { orgId: org.id, name: "postgres", description: "database servers", createdBy: user.id },
    });
    await prisma.policyVersion.create({
      data: {
        policyId: policy.id,
        orgId: org.id,
        version: 1,
        document: { schemaVersion: 1, readCache: { enabled: true } },
        comment: "first",
        createdBy: user.id,
      },
    });
    await prisma.policyAssignment.create({
      data: { orgId: org.id, policyId: policy.id, scope: "server", serverId: server.id, createdBy: user.id },
    });
    await prisma.serverPolicyStatus.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        desiredVersionHash: "a".repeat(64),
        appliedHash: "a".repeat(64),
        status: "applied",
        reportedAt: new Date(),
        appliedAt: new Date(),
      },
    });
    // The status row above was inserted as applied: the database recorded the event itself.
    const appliedEvent = await prisma.serverEvent.findFirstOrThrow({ where: { serverId: server.id, kind: "policy.applied" } });
    assert.equal((appliedEvent.details as { hash: string }).hash, "a".repeat(64));
    const event = await prisma.serverEvent.create({
      data: { orgId: org.id, serverId: server.id, at: new Date(), kind: "policy.rolled_back", details: { hash: "b".repeat(64) } },
    });
    assert.equal(
      (await prisma.serverEvent.findUniqueOrThrow({ where: { id: event.id }, include: { server: true } })).server.hostname,
      "db-01",
    );
    await prisma.serverReadLatency.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        windowStart: new Date(Date.now() - 3_600_000),
        windowEnd: new Date(),
        reads: 100,
        buckets: Array.from({ length: 28 }, (_, i) => (i === 10 ? 100 : 0)),
      },
    });
    assert.equal((await prisma.serverReadLatency.findUniqueOrThrow({ where: { serverId: server.id } })).buckets[10], 100);
    const run = await prisma.proofRun.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        requestedBy: user.id,
        profile: "sqlio",
        parameters: { paths: ["/srv/bench"], sizeBytes: 1048576 },
      },
    });
    const finished = await prisma.proofRun.update({
      where: { id: run.id },
      data: { status: "succeeded", progress: 1, phase: "done", report: { steps: [] }, startedAt: new Date(), finishedAt: new Date() },
    });
    assert.equal(finished.status, "succeeded");
    const channel = await prisma.notificationChannel.create({
      data: {
        orgId: org.id,
        name: "On-call",
        kind: "webhook",
        config: { url: "https://hooks.example.com/spindle" },
        secrets: { signingSecret: `whsec_${"A".repeat(32)}` },
        secretHints: { signingSecret: "…AAAA" },
        recommendationDigest: true,
        createdBy: user.id,
      },
    });
    await prisma.notificationRoute.create({
      data: {
        orgId: org.id,
        channelId: channel.id,
        severities: ["warning", "critical"],
        scope: "server",
        serverId: server.id,
        createdBy: user.id,
      },
    });
    await prisma.notification.create({
      data: { orgId: org.id, channelId: channel.id, transitionId: "transition-1", notice: { rule: { id: "r1" } }, requestedBy: user.id },
    });

    const recommendation = await prisma.recommendation.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        kind: "read_cache_budget",
        subject: "readCache.budgetBytes",
        title: "Raise the read-cache budget",
        change: { type: "set_read_cache_budget", budgetBytes: 6442450944 },
        evidence: { metric: "curve" },
        prediction: { after: 0.88 },
        confidence: { level: "high", tolerance: 0.03 },
      },
    });
    const applied = await prisma.recommendation.update({
      where: { id: recommendation.id },
      data: {
        status: "applied",
        appliedAt: new Date(),
        appliedPolicyId: policy.id,
        appliedPolicyVersion: 1,
        statusChangedBy: user.id,
        statusChangedAt: new Date(),
        realised: { status: "measured", after: 0.87 },
        realisedAt: new Date(),
        notifiedAt: new Date(),
      },
    });
    assert.equal(applied.appliedPolicyVersion, 1);
    assert.equal(applied.snoozedUntil, null);
    assert.equal(applied.resolvedAt, null);
    assert.deepEqual(applied.realised, { status: "measured", after: 0.87 });
    const digest = await prisma.recommendationDigest.create({
      data: { orgId: org.id, periodStart: new Date("2026-11-25T00:00:00Z"), recommendationIds: [recommendation.id], channels: 1 },
    });
    assert.deepEqual(digest.recommendationIds, [recommendation.id]);

    const release = await prisma.agentRelease.create({
      data: {
        version: "0.1.1",
        files: [{ os: "linux", arch: "amd64", name: "spindle-agent-linux-amd64", sha256: "c".repeat(64), size: 1 }],
        packages: [],
      },
    });
    assert.equal((await prisma.agentRelease.findUniqueOrThrow({ where: { version: release.version } })).version, "0.1.1");
    await prisma.agentVersionPin.create({
      data: { orgId: org.id, serverId: server.id, version: "0.1.0", reason: "vendor support", pinnedBy: user.id },
    });
    const upgradeRollout = await prisma.agentUpgradeRollout.create({
      data: {
        orgId: org.id,
        targetVersion: "0.1.1",
        scope: { kind: "organization" },
        plan: { canary: 1, wavePercents: [100], soakMinutes: 5 },
        waveCount: 2,
        createdBy: user.id,
      },
    });
    const upgrade = await prisma.agentUpgrade.create({
      data: {
        orgId: org.id,
        serverId: server.id,
        rolloutId: upgradeRollout.id,
        wave: 0,
        targetVersion: "0.1.1",
        fromVersion: "0.1.0",
        state: "installed",
        message: "",
        offerHash: "d".repeat(64),
        offeredAt: new Date(),
        reportedAt: new Date(),
        finishedAt: new Date(),
      },
    });
    assert.equal((await prisma.agentUpgrade.findUniqueOrThrow({ where: { id: upgrade.id } })).state, "installed");
    assert.equal(
      (await prisma.agentVersionPin.findUniqueOrThrow({ where: { orgId_serverId: { orgId: org.id, serverId: server.id } } })).version,
      "0.1.0",
    );

    const read = await prisma.organization.findUniqueOrThrow({
      where: { slug: "acme" },
      include: {
        members: { include: { user: { include: { sessions: true, accounts: true } } } },
        invitations: { include: { inviter: true } },
        enrollmentTokens: { include: { agents: true } },
        servers: { include: { agent: true, policyAssignments: true, policyStatus: true } },
        agents: true,
        auditLog: true,
        policies: { include: { versions: true, assignments: { include: { server: true } } } },
        policyVersions: true,
        policyAssignments: true,
        serverPolicyStatuses: true,
        proofRuns: { include: { server: true } },
        notificationChannels: { include: { routes: { include: { server: true } }, notifications: true } },
        notificationRoutes: true,
        notifications: true,
        apiTokens: true,
        ssoProviders: { include: { user: true } },
      },
    });
    assert.equal(read.requireMfa, true);
    assert.equal(read.apiTokens[0]?.requestCount, 0);
    assert.equal(read.apiTokens[0]?.enabled, true);
    assert.equal(read.ssoProviders[0]?.user?.email, "ada@example.com");
    assert.equal(read.ssoProviders[0]?.domainVerified, false);
    const withFactor = await prisma.user.findUniqueOrThrow({ where: { id: user.id }, include: { twoFactors: true, sessions: true } });
    assert.equal(withFactor.twoFactorEnabled, true);
    assert.equal(withFactor.twoFactors[0]?.failedVerificationCount, 1);
    assert.equal(withFactor.sessions[0]?.signInMethod, "password+totp");
    assert.equal(read.proofRuns[0]?.server.hostname, "db-01");
    assert.deepEqual(read.proofRuns[0]?.report, { steps: [] });
    const readChannel = read.notificationChannels[0];
    assert.deepEqual(readChannel?.routes[0]?.severities, ["warning", "critical"]);
    assert.equal(readChannel?.routes[0]?.server?.hostname, "db-01");
    assert.equal(readChannel?.routes[0]?.notifyResolved, true);
    assert.equal(readChannel?.notifications[0]?.status, "pending");
    assert.equal(readChannel?.notifications[0]?.attempts, 0);
    assert.equal(readChannel?.notifications[0]?.purpose, "alert");
    assert.equal(read.notificationRoutes.length, 1);
    assert.equal(read.notifications[0]?.transitionId, "transition-1");
    const member = read.members[0];
    assert.equal(member?.role, "owner");
    assert.equal(member?.user.sessions[0]?.activeOrganizationId, "org-1");
    assert.equal(member?.user.accounts[0]?.password, "argon2id$hash");
    assert.equal(read.invitations[0]?.inviter.email, "grace@example.com");
    assert.equal(read.invitations[0]?.status, "pending");
    assert.equal(read.enrollmentTokens[0]?.uses, 0);
    assert.equal(read.enrollmentTokens[0]?.agents.length, 1);
    assert.deepEqual(read.servers[0]?.tags, ["prod", "db"]);
    assert.equal(read.servers[0]?.agent?.batchHwm, 9_007_199_254_740_993n);
    assert.deepEqual(read.agents[0]?.capabilities, { ebpf: false, collectors: ["diskstats"] });
    assert.deepEqual(read.agents[0]?.telemetryCapabilities, [], "telemetry capabilities start empty");
    assert.equal(read.agents[0]?.telemetryCapabilitiesAt, null, "and unreported");
    assert.deepEqual(read.auditLog[0]?.details, { via: "token" });
    assert.equal(read.auditLog[0]?.apiTokenId, null, "no API token outside a token's transaction");
    assert.equal(typeof read.auditLog[0]?.id, "bigint");
    assert.deepEqual(read.policies[0]?.versions[0]?.document, { schemaVersion: 1, readCache: { enabled: true } });
    assert.equal(read.policies[0]?.versions[0]?.version, 1);
    assert.equal(read.policies[0]?.archivedAt, null);
    assert.equal(read.policies[0]?.assignments[0]?.server?.hostname, "db-01");
    assert.equal(read.servers[0]?.policyAssignments[0]?.scope, "server");
    assert.equal(read.servers[0]?.policyStatus?.status, "applied");
    assert.equal(read.serverPolicyStatuses[0]?.message, "");
    assert.equal(read.policyVersions.length, 1);
    assert.equal(read.policyAssignments[0]?.tag, null);
    const verification = await prisma.verification.findFirstOrThrow({ where: { identifier: "ada@example.com" } });
    assert.equal(verification.value, "123456");
    assert.match(server.id, /^[0-9a-f-]{36}$/);
  });

  it("enforces the SQL constraints Prisma does not know about", async () => {
    await assert.rejects(
      prisma.member.create({ data: { id: "member-bad", organizationId: "org-1", userId: "user-2", role: "superuser" } }),
      /members_role_check|check constraint/i,
    );
  });
});
