// Notification channels and routes as the console manages them, through @spindle/notify's store
// in the organisation's transaction as spindle_console (which cannot read secrets back), each
// change with its audit_log row in the same transaction.
import {
  createChannel,
  createRoute,
  deleteChannel,
  deleteRoute,
  listChannels,
  listRoutes,
  NotifyInputError,
  readNotification,
  SecretsKeyMissingError,
  sendTestNotification,
  updateChannel,
} from "@spindle/notify";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import type { ChannelSummary, CreateChannelBody, CreateRouteBody, DeliveryStatus, UpdateChannelBody } from "../types/channels";

export type ChannelActor = Pick<OrgContext, "orgId" | "userId" | "role">;
type Action = "create" | "update" | "delete" | "test";

function requirePermission(actor: ChannelActor, action: Action): void {
  if (!can(actor.role, { notificationChannel: [action] })) {
    throw forbidden(`Your role (${actor.role}) can see notification channels but not change or test them; ask an owner or admin.`);
  }
}

/** The store's "field: problem" lines as the API's 400 `errors`; no sealing key yet as a 503. */
async function asProblem<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SecretsKeyMissingError) throw new ProblemError(503, "Notification channels unavailable", error.message);
    if (!(error instanceof NotifyInputError)) throw error;
    throw new ProblemError(400, "Invalid request", error.message, {
      errors: error.problems.map((line) => {
        const at = line.indexOf(": ");
        return at > 0 ? { path: line.slice(0, at), message: line.slice(at + 2) } : { path: "", message: line };
      }),
    });
  }
}

async function audit(sql: OrgSql, actor: ChannelActor, action: string, target: string, details: Record<string, unknown>): Promise<void> {
  await sql.query(`INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, $3, $4, $5)`, [
    actor.orgId,
    actor.userId,
    action,
    target,
    JSON.stringify(details),
  ]);
}

const json = <T>(value: T) => JSON.parse(JSON.stringify(value)) as never;

export async function listChannelSummaries(db: Db, orgId: string): Promise<ChannelSummary[]> {
  return inOrgSql(db, orgId, async (sql) => {
    const [channels, routes] = [await listChannels(sql, orgId), await listRoutes(sql, orgId)];
    return channels.map((channel) => json({ ...channel, routes: routes.filter((r) => r.channelId === channel.id) }));
  });
}

/** A webhook's generated signing secret is in the answer once; nothing can read it again. */
export async function createChannelFor(
  db: Db,
  actor: ChannelActor,
  body: CreateChannelBody,
): Promise<{ channel: ChannelSummary; generatedSigningSecret?: string }> {
  requirePermission(actor, "create");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const created = await asProblem(createChannel(sql, { orgId: actor.orgId, ...body, createdBy: actor.userId }));
    await audit(sql, actor, "notification_channel.created", created.channel.id, { name: created.channel.name, kind: created.channel.kind });
    return {
      channel: json({ ...created.channel, routes: [] }),
      ...(created.generatedSigningSecret ? { generatedSigningSecret: created.generatedSigningSecret } : {}),
    };
  });
}

export async function updateChannelFor(db: Db, actor: ChannelActor, channelId: string, body: UpdateChannelBody): Promise<ChannelSummary> {
  requirePermission(actor, "update");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const channel = await asProblem(updateChannel(sql, { orgId: actor.orgId, id: channelId, ...body }));
    if (!channel) throw notFound("This channel");
    // Which fields changed, never their values: secrets stay out of the audit log too.
    await audit(sql, actor, "notification_channel.updated", channel.id, {
      name: channel.name,
      changed: Object.keys(body).sort(),
      ...(body.recommendationDigest === undefined ? {} : { recommendationDigest: body.recommendationDigest }),
    });
    const routes = (await listRoutes(sql, actor.orgId)).filter((r) => r.channelId === channel.id);
    return json({ ...channel, routes });
  });
}

export async function deleteChannelFor(db: Db, actor: ChannelActor, channelId: string): Promise<{ deleted: string }> {
  requirePermission(actor, "delete");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const name = (await listChannels(sql, actor.orgId)).find((c) => c.id === channelId)?.name;
    if (!name || !(await deleteChannel(sql, actor.orgId, channelId))) throw notFound("This channel");
    await audit(sql, actor, "notification_channel.deleted", channelId, { name });
    return { deleted: channelId };
  });
}

export async function createRouteFor(db: Db, actor: ChannelActor, channelId: string, body: CreateRouteBody): Promise<ChannelSummary> {
  requirePermission(actor, "update");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const channel = (await listChannels(sql, actor.orgId)).find((c) => c.id === channelId);
    if (!channel) throw notFound("This channel");
    const route = await asProblem(createRoute(sql, actor.orgId, { channelId, ...body }, actor.userId));
    await audit(sql, actor, "notification_route.created", channelId, {
      name: channel.name,
      severities: route.severities,
      scope: route.scope,
      tag: route.tag,
      serverId: route.serverId,
    });
    return json({ ...channel, routes: (await listRoutes(sql, actor.orgId)).filter((r) => r.channelId === channelId) });
  });
}

export async function deleteRouteFor(db: Db, actor: ChannelActor, routeId: string): Promise<{ deleted: string }> {
  requirePermission(actor, "update");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const route = (await listRoutes(sql, actor.orgId)).find((r) => r.id === routeId);
    if (!route || !(await deleteRoute(sql, actor.orgId, routeId))) throw notFound("This route");
    const channel = (await listChannels(sql, actor.orgId)).find((c) => c.id === route.channelId);
    await audit(sql, actor, "notification_route.deleted", route.channelId, {
      name: channel?.name ?? null,
      severities: route.severities,
      scope: route.scope,
    });
    return { deleted: routeId };
  });
}

/** Queues a test message through the real outbox and sender; poll readDelivery for the result. */
export async function sendTestFor(db: Db, actor: ChannelActor, channelId: string): Promise<{ notificationId: string }> {
  requirePermission(actor, "test");
  return inOrgSql(db, actor.orgId, async (sql) => {
    const channel = (await listChannels(sql, actor.orgId)).find((c) => c.id === channelId);
    if (!channel) throw notFound("This channel");
    const queued = await asProblem(sendTestNotification(sql, { orgId: actor.orgId, channelId, requestedBy: actor.userId }));
    await audit(sql, actor, "notification_channel.tested", channelId, { name: channel.name });
    return queued;
  });
}

export async function readDelivery(db: Db, orgId: string, notificationId: string): Promise<DeliveryStatus> {
  const status = await inOrgSql(db, orgId, (sql) => readNotification(sql, orgId, notificationId));
  if (!status) throw notFound("This notification");
  return json(status);
}
