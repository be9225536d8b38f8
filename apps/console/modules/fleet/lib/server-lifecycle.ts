// What an owner or admin can do to a server's agent from the console: revoke its credential
// (it stays revoked: no enrolment token can lift it), allow one re-enrolment for a limited time
// (the only way to let a token take over an enrolled machine's identity, e.g. after a reinstall),
// and remove the server with its history. Every change is audited and runs under row-level
// security for the caller's organisation.
import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { OrgContext } from "@/modules/auth/types/context";

/** How long "Allow re-enrolment" lasts: long enough to run the install command, no longer. */
export const REENROLMENT_WINDOW_MS = 60 * 60 * 1000;

type Actor = Pick<OrgContext, "orgId" | "userId">;

export interface AgentState {
  serverId: string;
  revokedAt: string | null;
  reenrollmentAllowedUntil: string | null;
  credentialExpiresAt: string | null;
}

async function findServer(tx: OrgTransaction, actor: Actor, serverId: string) {
  if (!isUuid(serverId)) throw notFound("This server");
  const server = await tx.server.findFirst({
    where: { id: serverId, orgId: actor.orgId },
    select: {
      id: true,
      hostname: true,
      agent: { select: { id: true, revokedAt: true, reenrollmentAllowedUntil: true, credentialExpiresAt: true } },
    },
  });
  if (!server) throw notFound("This server");
  return server;
}

function state(
  serverId: string,
  agent: { revokedAt: Date | null; reenrollmentAllowedUntil: Date | null; credentialExpiresAt: Date } | null,
): AgentState {
  return {
    serverId,
    revokedAt: agent?.revokedAt?.toISOString() ?? null,
    reenrollmentAllowedUntil: agent?.reenrollmentAllowedUntil?.toISOString() ?? null,
    credentialExpiresAt: agent?.credentialExpiresAt.toISOString() ?? null,
  };
}

/**
 * Revokes the server's agent credential: the gateway answers 401 to it from the next request,
 * and every gateway closes the agent's open OpAMP connection at once (the database announces
 * it: migration 20261124170000_agent_access_revoked_trigger).
 */
export async function revokeServer(db: Db, actor: Actor, serverId: string, now = new Date()): Promise<AgentState> {
  return inOrg(db, actor.orgId, async (tx) => {
    const server = await findServer(tx, actor, serverId);
    if (!server.agent) return state(server.id, null);
    if (server.agent.revokedAt) return state(server.id, server.agent);
    const agent = await tx.agent.update({
      where: { id: server.agent.id },
      data: { revokedAt: now, reenrollmentAllowedUntil: null },
      select: { revokedAt: true, reenrollmentAllowedUntil: true, credentialExpiresAt: true },
    });
    await tx.auditLog.create({
      data: {
        orgId: actor.orgId,
        actorId: actor.userId,
        action: "server.revoked",
        target: server.id,
        details: { hostname: server.hostname },
      },
    });
    return state(server.id, agent);
  });
}

/** Lets one enrolment with a token take over this server's identity within the window. */
export async function allowReenrolment(db: Db, actor: Actor, serverId: string, now = new Date()): Promise<AgentState> {
  return inOrg(db, actor.orgId, async (tx) => {
    const server = await findServer(tx, actor, serverId);
    if (!server.agent) return state(server.id, null);
    const until = new Date(now.getTime() + REENROLMENT_WINDOW_MS);
    const agent = await tx.agent.update({
      where: { id: server.agent.id },
      data: { reenrollmentAllowedUntil: until },
      select: { revokedAt: true, reenrollmentAllowedUntil: true, credentialExpiresAt: true },
    });
    await tx.auditLog.create({
      data: {
        orgId: actor.orgId,
        actorId: actor.userId,
        action: "server.reenrolment_allowed",
        target: server.id,
        details: { hostname: server.hostname, until: until.toISOString() },
      },
    });
    return state(server.id, agent);
  });
}

/**
 * Removes the server and its agent (credential gone: the gateway answers 401 and closes its
 * OpAMP connection), with its policy
 * status rows (foreign keys cascade). Raw telemetry has no foreign key (hypertables) and ages out
 * with retention; the audit entry stays.
 */
export async function removeServer(db: Db, actor: Actor, serverId: string): Promise<{ removed: string }> {
  return inOrg(db, actor.orgId, async (tx) => {
    const server = await findServer(tx, actor, serverId);
    if (server.agent) {
      // The agent row before the server row (the cascade would take them the other way round):
      // the gateway locks agents before servers when it records a batch or an OpAMP report, so
      // the same order here means waiting for it, never a deadlock.
      await tx.agent.delete({ where: { id: server.agent.id } });
    }
    await tx.server.delete({ where: { id: server.id } });
    await tx.auditLog.create({
      data: {
        orgId: actor.orgId,
        actorId: actor.userId,
        action: "server.removed",
        target: server.id,
        details: { hostname: server.hostname },
      },
    });
    return { removed: server.id };
  });
}

/** The agent's access state for the server page. */
export async function getAgentState(db: Db, actor: Pick<OrgContext, "orgId">, serverId: string): Promise<AgentState> {
  return inOrg(db, actor.orgId, async (tx) => {
    const server = await findServer(tx, { orgId: actor.orgId, userId: "" }, serverId);
    return state(server.id, server.agent);
  });
}
