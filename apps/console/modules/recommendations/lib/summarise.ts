// Prisma rows → RecommendationView, parsing the stored JSON with @spindle/domain's schemas.
import {
  confidenceSchema,
  describePolicyChange,
  evidenceSchema,
  policyChangeSchema,
  predictionSchema,
  recommendationKinds,
  realisedEffectSchema,
  type RecommendationKind,
} from "@spindle/domain";
import type { OrgTransaction } from "@/lib/db";
import type { RecommendationStatus, RecommendationView } from "../types/recommendation";
import { evidenceHref } from "./evidence-link";

type Row = Awaited<ReturnType<OrgTransaction["recommendation"]["findFirstOrThrow"]>>;

function kindOf(kind: string): RecommendationKind {
  if (!(recommendationKinds as readonly string[]).includes(kind))
    throw new Error(`recommendation of unknown kind ${kind}: a newer worker wrote it; update the console`);
  return kind as RecommendationKind;
}

export function summariseRecommendation(
  row: Row,
  names: { hostnames: Map<string, string>; users: Map<string, string>; policies: Map<string, string> },
): RecommendationView {
  const evidence = evidenceSchema.parse(row.evidence);
  const change = row.change === null ? null : policyChangeSchema.parse(row.change);
  return {
    id: row.id,
    serverId: row.serverId,
    hostname: names.hostnames.get(row.serverId) ?? row.serverId,
    kind: kindOf(row.kind),
    title: row.title,
    steps: row.steps,
    change: change ? describePolicyChange(change) : null,
    evidence,
    evidenceHref: evidenceHref(evidence),
    prediction: predictionSchema.parse(row.prediction),
    confidence: confidenceSchema.parse(row.confidence),
    status: row.status as RecommendationStatus,
    snoozedUntil: row.snoozedUntil?.toISOString() ?? null,
    statusChangedBy: row.statusChangedBy ? (names.users.get(row.statusChangedBy) ?? "a removed user") : null,
    statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
    applied: row.appliedAt
      ? {
          policyId: row.appliedPolicyId,
          policyName: row.appliedPolicyId ? (names.policies.get(row.appliedPolicyId) ?? null) : null,
          version: row.appliedPolicyVersion,
          at: row.appliedAt.toISOString(),
        }
      : null,
    realised: row.realised === null ? null : realisedEffectSchema.parse(row.realised),
    firstSeenAt: row.firstSeenAt.toISOString(),
    refreshedAt: row.refreshedAt.toISOString(),
  };
}
