// The agent-upgrade API's answers as zod schemas: the OpenAPI document is generated from them and
// the contract test holds every answer to them (types/agent-upgrades.ts has the TypeScript side).
import { guardReadingSchema, rolloutGuardsSchema } from "@spindle/domain";
import { z } from "zod";
import { isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";

const attemptState = z.enum([
  "waiting",
  "offered",
  "downloading",
  "installing",
  "installed",
  "failed",
  "rolled_back",
  "skipped",
  "cancelled",
]);
const rolloutStatus = z.enum(["running", "paused", "completed", "cancelled"]);

const upgradeCapability = z
  .object({ installMethod: z.string(), remote: z.boolean(), reason: z.string() })
  .nullable()
  .meta({ description: "What the agent said about replacing itself; null from an agent too old to say" });

const scope = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("organization") }),
  z.object({ kind: z.literal("tag"), tag: z.string() }),
  z.object({ kind: z.literal("servers"), serverIds: z.array(z.string()) }),
]);

const plan = z.object({
  canary: z.number().int(),
  wavePercents: z.array(z.number().int()),
  soakMinutes: z.number().int(),
  answerTimeoutMinutes: z.number().int(),
  guards: rolloutGuardsSchema,
});

const window = z.object({ start: isoDateTime, end: isoDateTime });
const waveGuards = z
  .object({
    verdict: z.enum(["pass", "hold", "trip"]),
    reason: z.string(),
    readings: z.array(guardReadingSchema),
    readingsAt: isoDateTime,
    after: window,
    before: window,
    overriddenBy: z.string().nullable(),
    overriddenAt: nullableDateTime,
  })
  .nullable()
  .meta({
    description: "The wave's measured guards, read after its soak; null until read (and for the last wave, which completes after its soak)",
  });

export const rolloutSummarySchema = z.object({
  id: z.string(),
  targetVersion: z.string(),
  scope,
  status: rolloutStatus,
  statusReason: z.string(),
  currentWave: z.number().int(),
  waveCount: z.number().int(),
  counts: z.partialRecord(attemptState, z.number().int()),
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  finishedAt: nullableDateTime,
});

const attemptSchema = z.object({
  id: z.string(),
  serverId: z.string(),
  hostname: z.string(),
  wave: z.number().int().nullable(),
  fromVersion: z.string(),
  targetVersion: z.string(),
  state: attemptState,
  message: z.string(),
  offeredAt: nullableDateTime,
  reportedAt: nullableDateTime,
  finishedAt: nullableDateTime,
  acknowledged: z.boolean(),
});

export const rolloutDetailSchema = rolloutSummarySchema.extend({
  plan,
  waves: z.array(z.object({ index: z.number().int(), label: z.string(), attempts: z.array(attemptSchema), guards: waveGuards })),
  skipped: z.array(attemptSchema),
  waveInstalledAt: nullableDateTime,
});

export const upgradeOverviewSchema = z.object({
  releases: z.array(
    z.object({ version: z.string(), platforms: z.array(z.string()), packages: z.array(z.string()), lastSeenAt: isoDateTime }),
  ),
  latestVersion: z.string().nullable(),
  versions: z.array(z.object({ version: z.string(), servers: z.number().int() })),
  servers: z.array(
    z.object({
      serverId: z.string(),
      hostname: z.string(),
      agentVersion: z.string(),
      online: z.boolean(),
      upgradeAvailable: z.string().nullable(),
      upgrade: upgradeCapability,
      pinnedVersion: z.string().nullable(),
      live: z.object({ targetVersion: z.string(), state: attemptState }).nullable(),
    }),
  ),
  rollouts: z.array(rolloutSummarySchema),
});

export const serverAgentVersionSchema = z.object({
  serverId: z.string(),
  hostname: z.string(),
  agentVersion: z.string(),
  latestVersion: z.string().nullable(),
  upgradeAvailable: z.string().nullable(),
  upgrade: upgradeCapability,
  pin: z.object({ version: z.string(), reason: z.string(), pinnedBy: z.string().nullable(), pinnedAt: isoDateTime }).nullable(),
  attempts: z.array(attemptSchema),
  releases: z.array(z.string()),
});
