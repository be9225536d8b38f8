// What the API contract test (lib/openapi/contract.test.ts) calls the API on: an owner signed in
// through better-auth's own endpoints, an admin API token made through the API, a viewer member,
// servers with an agent offering proof runs, a firing alert, recommendations, a finished proof
// run with a report, and the key notification channels are sealed to.
import { randomUUID } from "node:crypto";
import { readCacheBudgetFinding } from "@spindle/domain";
import { registerSecretsKey } from "@spindle/notify";
import { testSecretsOpener } from "@spindle/notify/testing";
import type { TestDatabase } from "./test-database";
import type { ContractState } from "./contract-plan";

const gib = 1024 ** 3;
const offered = {
  proofRuns: {
    profiles: [{ name: "fileserver", description: "IOmeter file-server mix", kind: "generator", source: "SEED-FACTS.md", steps: 4 }],
    paths: ["/srv/proof"],
  },
};

type CreateServer = (prisma: TestDatabase["prisma"], orgId: string, hostname: string, lastSeenAt?: Date | null) => Promise<{ id: string }>;

function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .filter((c) => !c.endsWith("="))
    .join("; ");
}

export async function contractFixtures(
  db: TestDatabase,
  options: { consoleUrl: string; issuer: string; createServer: CreateServer },
): Promise<ContractState> {
  const { auth } = await import("@/modules/auth/lib/auth");
  const { createRule } = await import("@/modules/alerts/lib/save-rule");
  const { listOpenAlerts } = await import("@/modules/alerts/lib/list-open-alerts");
  const registry = await import("@/app/api/openapi.json/routes");
  const base = `${options.consoleUrl}/api/auth`;
  let cookie = "";
  async function authCall(path: string, body: unknown) {
    const response = await auth().handler(
      new Request(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: options.consoleUrl, ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(body),
      }),
    );
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    const set = cookieOf(response);
    if (set) cookie = set;
    return response.json();
  }

  // The first account of an install without a mail server is verified at once (the operator's).
  const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
  await authCall("/sign-up/email", { name: "Olive Owner", email, password: "contract-password-1" });
  await authCall("/sign-in/email", { email, password: "contract-password-1" });
  const org = (await authCall("/organization/create", { name: "Contract Corp", slug: `contract-${randomUUID().slice(0, 8)}` })) as {
    id: string;
  };
  const owner = await db.prisma.user.findUniqueOrThrow({ where: { email } });

  const tokens = registry.apiRouteFiles.find((route) => route.path === "/api/api-tokens")!.module.POST as (
    r: Request,
    c: unknown,
  ) => Promise<Response>;
  const revoke = registry.apiRouteFiles.find((route) => route.path === "/api/api-tokens/[id]")!.module.DELETE as (
    r: Request,
    c: unknown,
  ) => Promise<Response>;
  async function token(role: "admin" | "viewer", name: string) {
    const response = await tokens(
      new Request(`${options.consoleUrl}/api/api-tokens`, {
        method: "POST",
        headers: { cookie, origin: options.consoleUrl, "content-type": "application/json" },
        body: JSON.stringify({ name, role, expiresInDays: 30 }),
      }),
      { params: Promise.resolve({}) },
    );
    if (response.status !== 201) throw new Error(`token: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { token: { id: string; secret: string } }).token;
  }
  const admin = await token("admin", "contract");
  const viewerToken = await token("viewer", "read-only script");
  const revoked = await token("viewer", "revoked");
  await revoke(
    new Request(`${options.consoleUrl}/api/api-tokens/${revoked.id}`, {
      method: "DELETE",
      headers: { cookie, origin: options.consoleUrl },
    }),
    { params: Promise.resolve({ id: revoked.id }) },
  );

  // Another organisation of the same owner, with an admin token of its own: the stranger whose
  // calls on this organisation's ids must find nothing. Creating it makes it the session's active
  // organisation, so the session is set back to Contract Corp before anything else.
  await authCall("/organization/create", { name: "Elsewhere Ltd", slug: `elsewhere-${randomUUID().slice(0, 8)}` });
  const stranger = await token("admin", "elsewhere");
  await authCall("/organization/set-active", { organizationId: org.id });

  const viewer = await db.prisma.user.create({
    data: {
      id: `viewer-${randomUUID().slice(0, 8)}`,
      name: "Vic Viewer",
      email: `vic-${randomUUID().slice(0, 8)}@example.com`,
      emailVerified: true,
    },
  });
  const viewerMember = await db.prisma.member.create({
    data: { id: `member-${randomUUID().slice(0, 8)}`, organizationId: org.id, userId: viewer.id, role: "viewer" },
  });
  await db.prisma.session.create({
    data: { id: randomUUID(), userId: viewer.id, token: randomUUID(), expiresAt: new Date(Date.now() + 86_400_000) },
  });

  const server = await options.createServer(db.prisma, org.id, "db-contract", new Date());
  // An agent that replaces itself, on 0.1.0, and a release it can be upgraded (or pinned) to.
  await db.prisma.agent.create({
    data: {
      orgId: org.id,
      serverId: server.id,
      credentialHash: Buffer.from(randomUUID()),
      capabilities: { ...offered, upgrade: { installMethod: "script", remote: true, reason: "" } },
    },
  });
  await db.pool.query("UPDATE servers SET agent_version = '0.1.0' WHERE id = $1", [server.id]);
  await db.pool.query("INSERT INTO agent_releases (version, files) VALUES ('9.9.0', $1) ON CONFLICT DO NOTHING", [
    JSON.stringify([{ os: "linux", arch: "amd64", name: "spindle-agent-linux-amd64", sha256: "0".repeat(64), size: 1 }]),
  ]);
  const doomed = await options.createServer(db.prisma, org.id, "old-contract", new Date());
  await db.prisma.agent.create({
    data: { orgId: org.id, serverId: doomed.id, credentialHash: Buffer.from(randomUUID()), capabilities: {} },
  });

  await registerSecretsKey(db.pool, testSecretsOpener);

  const actor = { orgId: org.id, userId: owner.id, role: "owner" as const };
  const rule = await createRule(db, actor, {
    name: "Reads above 50/s",
    enabled: true,
    signal: "disk.read_iops",
    aggregation: "avg",
    comparison: ">",
    threshold: 50,
    windowSeconds: 300,
    forSeconds: 120,
    resolveSeconds: 120,
    noDataSeconds: 600,
    scope: { scope: "organization" },
    severity: "warning",
    note: "look at sda",
  });
  const since = new Date(Date.now() - 60_000);
  await db.pool.query(
    `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, condition_since, value, updated_at)
    VALUES ($1, $2, $3, 'sda', 'firing', $4, $4, 90, $4)`,
    [org.id, rule.id, server.id, since],
  );
  await db.pool.query(
    `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
    VALUES ($1, $2, $3, 'warning', $4, 'sda', $5, 'pending', 'firing', 90, 50, '>')`,
    [org.id, rule.id, rule.name, server.id, since],
  );
  const [open] = await listOpenAlerts(db, org.id);

  const from = new Date("2026-11-16T00:00:00Z");
  const to = new Date("2026-11-23T00:00:00Z");
  const recommendation = async (serverId: string, budgetGib: number) => {
    const finding = readCacheBudgetFinding({
      serverId,
      curve: {
        curve: "read_cache",
        scope: "",
        sampleRate: 0.01,
        sampledAccesses: 200_000,
        windowFrom: from,
        windowTo: to,
        sizesBytes: [1, 2, 4, 6, 8].map((g) => g * gib),
        hitRatios: [0.4, 0.61, 0.8, 0.88, 0.885],
      },
      readCache: { enabled: true, freeMemoryFloorBytes: 512 * 1024 ** 2, scanResistanceThresholdBytes: 128 * 1024 ** 2 },
      currentBudgetBytes: budgetGib * gib,
      availableMemory: { p5Bytes: 9.5 * gib, samples: 1000, from, to },
    })!;
    const row = await db.prisma.recommendation.create({
      data: {
        orgId: org.id,
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
  };

  const report = {
    profile: "fileserver",
    description: "IOmeter file-server mix",
    startedAt: from.toISOString(),
    endedAt: to.toISOString(),
    complete: true,
    ab: true,
    passOrder: ["off", "on", "on", "off"],
    throughput: "iops",
    latencyLimitSeconds: 0.1,
    stepSeconds: 1,
    device: { path: "/srv/proof", name: "sda", fileSystem: "ext4" },
    steps: [{ index: 0, workload: "fileserver", label: "1 thread × 1", off: null, on: null }],
    reads: { off: null, on: null },
    writePath: null,
    notes: [],
  };
  const finished = await db.prisma.proofRun.create({
    data: {
      orgId: org.id,
      serverId: server.id,
      requestedBy: owner.id,
      profile: "fileserver",
      status: "succeeded",
      progress: 1,
      phase: "done",
      parameters: {
        paths: ["/srv/proof"],
        sizeLimitBytes: 8 * 1024 ** 2,
        timeLimitSeconds: 60,
        stepSeconds: 1,
        latencyLimitSeconds: 0.1,
        ab: true,
        directIO: false,
      },
      report,
      startedAt: from,
      finishedAt: to,
    },
  });

  return {
    orgId: org.id,
    ownerCookie: cookie,
    adminToken: admin.secret,
    adminTokenId: admin.id,
    revokedToken: revoked.secret,
    viewerToken: viewerToken.secret,
    strangerToken: stranger.secret,
    serverId: server.id,
    doomedServerId: doomed.id,
    viewerMemberId: viewerMember.id,
    alertId: open!.alertId!,
    applyRecommendationId: await recommendation(server.id, 2),
    otherRecommendationId: await recommendation(doomed.id, 1),
    finishedRunId: finished.id,
    issuer: options.issuer,
    ids: {},
  };
}
