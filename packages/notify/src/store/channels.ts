// Channels and routes as the console manages them. Secrets go in and never come out: they are
// sealed to the workers' key before they are written (secrets/sealed-secrets.ts), every read
// here selects the columns the console's database role may see, and a channel's view carries
// hints instead. Callers run these in the organisation's transaction and write the audit log.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  channelSettingsSchema,
  generateWebhookSigningSecret,
  parseChannelSettings,
  secretHints,
  type ChannelKind,
  type ChannelSettings,
} from "../channel-kinds.js";
import { NotifyInputError, problemsOf } from "../input-error.js";
import { routeSchema, type Route } from "../routing.js";
import { secretsBinding } from "../secrets/sealed-secrets.js";
import type { Queryable } from "./queryable.js";
import { currentSealer } from "./secrets-keys.js";

export interface ChannelView {
  id: string;
  name: string;
  kind: ChannelKind;
  config: Record<string, unknown>;
  secretHints: Record<string, string>;
  enabled: boolean;
  /** Opted in to the recommendations digest (store/digest.ts). */
  recommendationDigest: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const viewColumns = "id::text, name, kind, config, secret_hints, enabled, recommendation_digest, created_at, updated_at";

// biome-ignore lint/suspicious/noExplicitAny: a row of the SELECT of viewColumns, as node-postgres returns it
function toView(row: any): ChannelView {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    config: row.config,
    secretHints: row.secret_hints,
    enabled: row.enabled,
    recommendationDigest: row.recommendation_digest,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const nameSchema = z.string().trim().min(1, "a channel needs a name").max(100);

function duplicateName(error: unknown, name: string): never {
  if ((error as { code?: string }).code === "23505") {
    throw new NotifyInputError("cannot save the channel", [`name: a channel named "${name}" already exists`]);
  }
  throw error;
}

export interface CreateChannelInput {
  orgId: string;
  name: string;
  kind: ChannelKind;
  config: unknown;
  /** For a webhook, leave signingSecret out to have one generated (returned once). */
  secrets: Record<string, unknown>;
  enabled?: boolean;
  createdBy: string | null;
}

/** Returns the view, plus a generated webhook signing secret: show it once, it cannot be read again. */
export async function createChannel(
  tx: Queryable,
  input: CreateChannelInput,
): Promise<{ channel: ChannelView; generatedSigningSecret?: string }> {
  const name = nameSchema.safeParse(input.name);
  if (!name.success) throw new NotifyInputError("cannot save the channel", problemsOf(name.error.issues, "name"));
  const generated = input.kind === "webhook" && input.secrets.signingSecret === undefined ? generateWebhookSigningSecret() : undefined;
  const settings = parseChannelSettings({
    kind: input.kind,
    config: input.config,
    secrets: generated ? { ...input.secrets, signingSecret: generated } : input.secrets,
  });
  // The id is chosen here because the sealed secrets are bound to it.
  const id = randomUUID();
  const sealed = (await currentSealer(tx)).seal(secretsBinding(input.orgId, id), settings.secrets);
  const { rows } = await tx
    .query(
      `INSERT INTO notification_channels (id, org_id, name, kind, config, secrets, secret_hints, enabled, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${viewColumns}`,
      [
        id,
        input.orgId,
        name.data,
        settings.kind,
        JSON.stringify(settings.config),
        JSON.stringify(sealed),
        JSON.stringify(secretHints(settings)),
        input.enabled ?? true,
        input.createdBy,
      ],
    )
    .catch((error: unknown) => duplicateName(error, name.data));
  return { channel: toView(rows[0]), ...(generated ? { generatedSigningSecret: generated } : {}) };
}

export interface UpdateChannelInput {
  orgId: string;
  id: string;
  name?: string;
  enabled?: boolean;
  config?: unknown;
  /** Replaces every secret of the channel; leave out to keep them. */
  secrets?: Record<string, unknown>;
  /** Opt in to (or out of) the recommendations digest; a PagerDuty channel cannot opt in. */
  recommendationDigest?: boolean;
}

/** The kind never changes (make a new channel); null when the channel is not in this organisation. */
export async function updateChannel(tx: Queryable, input: UpdateChannelInput): Promise<ChannelView | null> {
  if (!z.uuid().safeParse(input.id).success) return null;
  const current = await tx.query(`SELECT kind FROM notification_channels WHERE org_id = $1 AND id = $2`, [input.orgId, input.id]);
  const kind = current.rows[0]?.kind as ChannelKind | undefined;
  if (!kind) return null;
  const sets: string[] = ["updated_at = now()"];
  const params: unknown[] = [input.orgId, input.id];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (input.name !== undefined) {
    const name = nameSchema.safeParse(input.name);
    if (!name.success) throw new NotifyInputError("cannot save the channel", problemsOf(name.error.issues, "name"));
    set("name", name.data);
  }
  if (input.enabled !== undefined) set("enabled", input.enabled);
  if (input.recommendationDigest !== undefined) {
    if (input.recommendationDigest && kind === "pagerduty") {
      throw new NotifyInputError("cannot send the digest there", [
        "recommendationDigest: a PagerDuty channel opens incidents; send the recommendations digest by e-mail, chat or webhook",
      ]);
    }
    set("recommendation_digest", input.recommendationDigest);
  }
  // Config and secrets of every kind validate independently, so either may change alone.
  const option = channelSettingsSchema.options.find((candidate) => candidate.shape.kind.value === kind)!;
  if (input.config !== undefined) {
    const config = option.shape.config.safeParse(input.config);
    if (!config.success)
      throw new NotifyInputError(
        "invalid channel settings",
        problemsOf(config.error.issues, "config").map((p) => `config.${p}`),
      );
    set("config", JSON.stringify(config.data));
  }
  if (input.secrets !== undefined) {
    const secrets = option.shape.secrets.safeParse(input.secrets);
    if (!secrets.success)
      throw new NotifyInputError(
        "invalid channel settings",
        problemsOf(secrets.error.issues, "secrets").map((p) => `secrets.${p}`),
      );
    const sealed = (await currentSealer(tx)).seal(secretsBinding(input.orgId, input.id), secrets.data);
    set("secrets", JSON.stringify(sealed));
    set("secret_hints", JSON.stringify(secretHints({ kind, config: {}, secrets: secrets.data } as ChannelSettings)));
  }
  const { rows } = await tx
    .query(`UPDATE notification_channels SET ${sets.join(", ")} WHERE org_id = $1 AND id = $2 RETURNING ${viewColumns}`, params)
    .catch((error: unknown) => duplicateName(error, input.name ?? ""));
  return rows[0] ? toView(rows[0]) : null;
}

export async function listChannels(tx: Queryable, orgId: string): Promise<ChannelView[]> {
  const { rows } = await tx.query(`SELECT ${viewColumns} FROM notification_channels WHERE org_id = $1 ORDER BY lower(name)`, [orgId]);
  return rows.map(toView);
}

/** Deletes the channel with its routes and its notification history. */
export async function deleteChannel(tx: Queryable, orgId: string, id: string): Promise<boolean> {
  if (!z.uuid().safeParse(id).success) return false;
  const result = await tx.query(`DELETE FROM notification_channels WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return (result.rowCount ?? 0) > 0;
}

export interface RouteView extends Route {
  id: string;
  createdAt: Date;
}

const routeColumns = "id::text, channel_id::text, severities, scope, tag, server_id::text, notify_resolved, created_at";

// biome-ignore lint/suspicious/noExplicitAny: a row of the SELECT of routeColumns, as node-postgres returns it
function toRouteView(row: any): RouteView {
  return {
    id: row.id,
    channelId: row.channel_id,
    severities: row.severities,
    scope: row.scope,
    tag: row.tag,
    serverId: row.server_id,
    notifyResolved: row.notify_resolved,
    createdAt: row.created_at,
  };
}

export async function createRoute(tx: Queryable, orgId: string, input: unknown, createdBy: string | null): Promise<RouteView> {
  const parsed = routeSchema.safeParse(input);
  if (!parsed.success) throw new NotifyInputError("invalid route", problemsOf(parsed.error.issues, "route"));
  const route = parsed.data;
  const { rows } = await tx
    .query(
      `INSERT INTO notification_routes (org_id, channel_id, severities, scope, tag, server_id, notify_resolved, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${routeColumns}`,
      [orgId, route.channelId, route.severities, route.scope, route.tag, route.serverId, route.notifyResolved, createdBy],
    )
    .catch((error: { code?: string; constraint?: string }) => {
      // The composite foreign keys refuse a channel or server of another organisation as if it did not exist.
      if (error.code === "23503") {
        const field = error.constraint?.includes("server") ? "serverId: no such server" : "channelId: no such channel";
        throw new NotifyInputError("invalid route", [`${field} in this organisation`]);
      }
      throw error;
    });
  return toRouteView(rows[0]);
}

export async function listRoutes(tx: Queryable, orgId: string): Promise<RouteView[]> {
  const { rows } = await tx.query(`SELECT ${routeColumns} FROM notification_routes WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  return rows.map(toRouteView);
}

export async function deleteRoute(tx: Queryable, orgId: string, id: string): Promise<boolean> {
  if (!z.uuid().safeParse(id).success) return false;
  const result = await tx.query(`DELETE FROM notification_routes WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return (result.rowCount ?? 0) > 0;
}
