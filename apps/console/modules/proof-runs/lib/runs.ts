// Proof runs in the database: request, cancel, list, read. Every query is scoped by the
// caller's organisation; a run or server of another organisation is "not found".
import { inOrg, type Db } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import { activeStatuses, agentParameters, type RunStatus, type RunSummary, type StartRunInput } from "../types/proof-run";
import { toAgentParameters } from "./parameters";
import { proofRunOffer } from "./profiles";

export type RunActor = Pick<OrgContext, "orgId" | "userId" | "role">;

const summarySelect = {
  id: true,
  serverId: true,
  profile: true,
  status: true,
  progress: true,
  phase: true,
  error: true,
  parameters: true,
  requestedBy: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
} as const;

type Row = {
  id: string;
  serverId: string;
  profile: string;
  status: string;
  progress: number | null;
  phase: string | null;
  error: string | null;
  parameters: unknown;
  requestedBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

export function summariseRun(row: Row, hasReport = row.status === "succeeded"): RunSummary {
  const parameters = agentParameters.safeParse(row.parameters);
  return {
    id: row.id,
    serverId: row.serverId,
    profile: row.profile,
    status: row.status as RunStatus,
    progress: row.progress,
    phase: row.phase,
    error: row.error,
    parameters: parameters.success ? parameters.data : null,
    requestedBy: row.requestedBy,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    hasReport,
  };
}

function requirePermission(actor: RunActor, action: "start" | "cancel") {
  if (!can(actor.role, { proofRun: [action] })) {
    throw forbidden(`Your role (${actor.role}) can view proof runs but not ${action} them; ask an owner or admin.`);
  }
}

/** Queues a run for the server's agent; one active run per server (the agent runs one at a time). */
export async function startRun(db: Db, actor: RunActor, serverId: string, input: StartRunInput): Promise<RunSummary> {
  requirePermission(actor, "start");
  if (!isUuid(serverId)) throw notFound("This server");
  let hostname = "";
  try {
    return await inOrg(db, actor.orgId, async (tx) => {
      const server = await tx.server.findFirst({
        where: { id: serverId, orgId: actor.orgId },
        select: { id: true, hostname: true, agent: { select: { capabilities: true, revokedAt: true } } },
      });
      if (!server) throw notFound("This server");
      hostname = server.hostname;
      const parameters = checkRequest(server, input);
      const row = await tx.proofRun.create({
        data: { orgId: actor.orgId, serverId: server.id, requestedBy: actor.userId, profile: input.profile, parameters },
        select: summarySelect,
      });
      await tx.auditLog.create({
        data: {
          orgId: actor.orgId,
          actorId: actor.userId,
          action: "proof_run.requested",
          target: row.id,
          details: { hostname: server.hostname, serverId: server.id, profile: input.profile, parameters },
        },
      });
      return summariseRun(row);
    });
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "P2002") {
      throw new ProblemError(
        409,
        "A run is in progress",
        `${hostname} already has a proof run queued or running; wait for it or cancel it first.`,
      );
    }
    throw error;
  }
}

/** The agent's parameters for a request its server's agent can honour; a clear 400 / 409 otherwise. */
function checkRequest(server: { hostname: string; agent: { capabilities: unknown; revokedAt: Date | null } | null }, input: StartRunInput) {
  if (!server.agent || server.agent.revokedAt) {
    throw new ProblemError(409, "No agent", `${server.hostname} has no enrolled agent to run the proof run; enrol one first.`);
  }
  const { profiles, paths } = proofRunOffer(server.agent.capabilities);
  if (!profiles.some((profile) => profile.name === input.profile)) {
    const names = profiles.map((profile) => profile.name).join(", ");
    throw new ProblemError(
      400,
      "Unknown profile",
      profiles.length === 0
        ? `The agent on ${server.hostname} has not offered any proof-run profiles yet; it does once it is connected (agent 0.2 or later).`
        : `The agent on ${server.hostname} offers ${names}; pick one of them.`,
    );
  }
  for (const path of [input.dataPath, input.logPath].filter((p): p is string => p !== undefined)) {
    if (!paths.includes(path)) {
      throw new ProblemError(
        400,
        "Directory not allowed",
        paths.length === 0
          ? `The agent on ${server.hostname} allows no directories for proof runs; its operator lists them under proof_runs.paths in agent.yaml.`
          : `The agent on ${server.hostname} allows proof runs in ${paths.join(", ")} only.`,
      );
    }
  }
  return toAgentParameters(input);
}

/** Asks the agent to stop a run; a run still queued is cancelled at once. */
export async function cancelRun(db: Db, actor: RunActor, runId: string): Promise<RunSummary> {
  requirePermission(actor, "cancel");
  return inOrg(db, actor.orgId, async (tx) => {
    const run = isUuid(runId)
      ? await tx.proofRun.findFirst({
          where: { id: runId, orgId: actor.orgId },
          select: { id: true, status: true, server: { select: { hostname: true } } },
        })
      : null;
    if (!run) throw notFound("This proof run");
    if (!activeStatuses.includes(run.status as RunStatus)) {
      throw new ProblemError(409, "Run already finished", `This run has ${run.status}; there is nothing to cancel.`);
    }
    const now = new Date();
    // The status guard makes a cancel that races the agent's own finish a no-op, not a rewrite.
    const updated = await tx.proofRun.updateMany({
      where: { id: run.id, orgId: actor.orgId, status: run.status },
      data:
        run.status === "queued"
          ? { status: "cancelled", cancelRequestedAt: now, cancelledBy: actor.userId, finishedAt: now }
          : { status: "cancelling", cancelRequestedAt: now, cancelledBy: actor.userId },
    });
    if (updated.count === 0) throw new ProblemError(409, "Run changed", "The run changed meanwhile; reload and try again.");
    await tx.auditLog.create({
      data: {
        orgId: actor.orgId,
        actorId: actor.userId,
        action: "proof_run.cancelled",
        target: run.id,
        details: { hostname: run.server.hostname, was: run.status },
      },
    });
    const row = await tx.proofRun.findFirstOrThrow({ where: { id: run.id, orgId: actor.orgId }, select: summarySelect });
    return summariseRun(row);
  });
}

export async function listRuns(db: Db, orgId: string, serverId: string, limit = 20): Promise<RunSummary[]> {
  if (!isUuid(serverId)) throw notFound("This server");
  const rows = await inOrg(db, orgId, async (tx) => {
    const server = await tx.server.findFirst({ where: { id: serverId, orgId }, select: { id: true } });
    if (!server) throw notFound("This server");
    const runs = await tx.proofRun.findMany({
      where: { orgId, serverId },
      orderBy: { createdAt: "desc" },
      take: limit,
      select: summarySelect,
    });
    // which of them hold a report (a stopped run's partial one too), without reading the reports
    const ids = runs.map((run) => run.id);
    const withReport = await tx.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM proof_runs WHERE org_id = ${orgId} AND id = ANY(${ids}::uuid[]) AND report IS NOT NULL`;
    return { runs, withReport: new Set(withReport.map((run) => run.id)) };
  });
  return rows.runs.map((row) => summariseRun(row, rows.withReport.has(row.id)));
}

export interface RunDetail extends RunSummary {
  hostname: string;
  report: unknown;
}

export async function getRun(db: Db, orgId: string, runId: string): Promise<RunDetail> {
  const row = isUuid(runId)
    ? await inOrg(db, orgId, (tx) =>
        tx.proofRun.findFirst({
          where: { id: runId, orgId },
          select: { ...summarySelect, report: true, server: { select: { hostname: true } } },
        }),
      )
    : null;
  if (!row) throw notFound("This proof run");
  return { ...summariseRun(row, row.report !== null), hostname: row.server.hostname, report: row.report };
}
