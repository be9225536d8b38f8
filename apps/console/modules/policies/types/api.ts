import { z } from "zod";
import { author, isoDateTime, nullableDateTime } from "@/lib/openapi/schemas";
import { assignmentScopes } from "./policy";

const document = z
  .record(z.string(), z.unknown())
  .meta({ description: "A policy layer (docs/policy.md): only the fields this policy sets" });

export const policyVersionSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  document,
  comment: z.string(),
  createdAt: isoDateTime,
  createdBy: author.nullable(),
});

export const assignmentSchema = z.object({
  id: z.string(),
  policyId: z.string(),
  policyName: z.string(),
  scope: z.enum(assignmentScopes),
  tag: z.string().nullable(),
  serverId: z.string().nullable(),
  serverHostname: z.string().nullable(),
  createdAt: isoDateTime,
});

const policyBase = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  createdAt: isoDateTime,
  archivedAt: nullableDateTime,
  assignments: z.array(assignmentSchema),
});

export const policySummarySchema = policyBase.extend({ latestVersion: policyVersionSchema.omit({ document: true }) });
export const policyDetailSchema = policyBase.extend({ versions: z.array(policyVersionSchema) });

const layerSource = z.object({
  scope: z.enum(assignmentScopes),
  tag: z.string().nullable(),
  policyId: z.string(),
  policyName: z.string(),
  version: z.number().int(),
});
const layers = z.array(z.object({ source: layerSource, document }));
const fields = z.array(z.object({ path: z.string(), value: z.unknown(), source: layerSource.nullable() }));

export const serverPolicySchema = z.object({
  serverId: z.uuid(),
  hostname: z.string(),
  tags: z.array(z.string()),
  effective: z.discriminatedUnion("ok", [
    z.object({ ok: z.literal(true), layers, fields, policy: z.record(z.string(), z.unknown()), hash: z.string() }),
    z.object({
      ok: z.literal(false),
      layers,
      fields,
      problems: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() }).loose()),
    }),
  ]),
  status: z.object({
    state: z.enum(["pending", "applied", "failed", "invalid"]),
    desiredHash: z.string().nullable(),
    appliedHash: z.string().nullable(),
    appliedAt: nullableDateTime,
    reportedAt: nullableDateTime,
    message: z.string(),
    olderAgent: z.object({ agentVersion: z.string(), fields: z.array(z.string()) }).nullable(),
  }),
});
