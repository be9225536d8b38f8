// The calls of the API contract test, in order: one or more per documented operation (the test
// fails for an operation the plan does not call). Ids made by earlier calls go into `ids`.

export interface ContractState {
  orgId: string;
  ownerCookie: string;
  adminToken: string;
  adminTokenId: string;
  revokedToken: string;
  /** A viewer's token of this organisation: reads, never changes. */
  viewerToken: string;
  /** An admin token of another organisation of the same owner: finds nothing of this one. */
  strangerToken: string;
  serverId: string;
  doomedServerId: string;
  viewerMemberId: string;
  alertId: string;
  applyRecommendationId: string;
  otherRecommendationId: string;
  finishedRunId: string;
  issuer: string;
  ids: Record<string, string>;
}

export interface ContractCall {
  operationId: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The status expected; it must also be one the document lists. */
  status: number;
  /**
   * Who calls (default: the admin token). Tokens are refused owner-only operations; those are
   * called again with the owner's session. `viewer`, `stranger` (another organisation's admin
   * token) and `anonymous` (no credential) try to cross a line: the plan calls them before the
   * admin call whose answer shows nothing changed.
   */
  as?: "token" | "session" | "viewer" | "stranger" | "anonymous";
  /** A request the document itself refuses (the test checks it does), sent to see the 400. */
  invalid?: true;
  // biome-ignore lint/suspicious/noExplicitAny: the operation's answer, which the test has already checked against the document
  andThen?: (body: any, state: ContractState) => void;
}

const rule = {
  name: "Writes above 10/s",
  enabled: true,
  signal: "disk.write_iops",
  aggregation: "avg",
  comparison: ">",
  threshold: 10,
  windowSeconds: 300,
  forSeconds: 60,
  resolveSeconds: 60,
  noDataSeconds: 600,
  scope: { scope: "organization" },
  severity: "critical",
  note: "",
};
const hour = 3_600_000;

type PlannedCall = (s: ContractState) => Omit<ContractCall, "status" | "as">;

/**
 * One call of this organisation's, as everyone but its admins makes it: a viewer's token (the
 * given status: 200 for a read, 403 for a change), another organisation's admin token (404: the
 * id does not exist for it) and no credential (401).
 */
const asOthers = (viewerStatus: 200 | 403, call: PlannedCall): ((s: ContractState) => ContractCall)[] => [
  (s) => ({ ...call(s), status: viewerStatus, as: "viewer" }),
  (s) => ({ ...call(s), status: 404, as: "stranger" }),
  (s) => ({ ...call(s), status: 401, as: "anonymous" }),
];
/** A change refused to everyone but the organisation's admins. */
const refusedToOthers = (call: PlannedCall) => asOthers(403, call);
/** A read of this organisation's id: a viewer sees it, another organisation does not. */
const readableByViewerOnly = (call: PlannedCall) => asOthers(200, call);

export const contractPlan: ((s: ContractState) => ContractCall)[] = [
  () => ({ operationId: "getServers", status: 200 }),
  (s) => ({ operationId: "getServersById", params: { id: s.serverId }, status: 200 }),
  (s) => ({ operationId: "getServersByIdMetrics", params: { id: s.serverId }, query: { range: "1h" }, status: 200 }),
  (s) => ({
    operationId: "getServersByIdMetrics",
    params: { id: s.serverId },
    query: { from: "2026-11-01T00:00:00Z", to: "2026-11-01T06:00:00Z" },
    status: 200,
  }),
  () => ({ operationId: "getServers", query: { q: "contract", sort: "hostname", group: "tag" }, status: 200 }),
  () => ({ operationId: "getServersFacets", status: 200 }),
  (s) => ({ operationId: "getAnnotations", query: { servers: s.serverId, range: "7d" }, status: 200 }),
  (s) => ({
    operationId: "getCompare",
    query: { servers: `${s.serverId},${s.doomedServerId}`, metric: "readIops", range: "24h" },
    status: 200,
  }),
  (s) => ({
    operationId: "postServersBulk",
    body: { action: "tag", tag: "contract", target: { serverIds: [s.serverId] }, preview: true },
    status: 200,
  }),
  (s) => ({ operationId: "postServersBulk", body: { action: "tag", tag: "contract", target: { serverIds: [s.serverId] } }, status: 200 }),
  () => ({
    operationId: "postServersBulk",
    body: { action: "tag", tag: "contract", target: { filter: { q: "contract" }, expectedCount: 9 } },
    status: 409,
  }),
  (s) => ({ operationId: "getServersByIdDeepTelemetry", params: { id: s.serverId }, query: { range: "24h" }, status: 200 }),
  (s) => ({
    operationId: "getServersByIdFamilies",
    params: { id: s.serverId },
    query: { range: "24h", tables: "write_opt,write_opt_trimmed" },
    status: 200,
  }),
  (s) => ({ operationId: "getServersByIdCacheCurves", params: { id: s.serverId }, status: 200 }),
  (s) => ({ operationId: "getServersByIdGains", params: { id: s.serverId }, query: { range: "24h" }, status: 200 }),
  (s) => ({ operationId: "getServersByIdGainsVerdict", params: { id: s.serverId }, status: 200 }),
  () => ({ operationId: "getGains", query: { range: "7d" }, status: 200 }),
  () => ({ operationId: "getGainsExport", query: { what: "ledger", range: "24h" }, status: 200 }),

  () => ({ operationId: "getEnrollmentTokens", status: 200 }),
  () => ({
    operationId: "postEnrollmentTokens",
    body: { label: "contract", expiresIn: "1h" },
    status: 201,
    andThen: (b, s) => (s.ids.enrolment = b.token.id),
  }),
  (s) => ({ operationId: "deleteEnrollmentTokensById", params: { id: s.ids.enrolment! }, status: 200 }),

  () => ({ operationId: "getPolicies", query: { archived: "1" }, status: 200 }),
  () => ({
    operationId: "postPolicies",
    body: { name: "Databases", description: "made by a token" },
    status: 201,
    andThen: (b, s) => (s.ids.policy = b.policy.id),
  }),
  (s) => ({ operationId: "getPoliciesById", params: { id: s.ids.policy! }, status: 200 }),
  (s) => ({
    operationId: "postPoliciesByIdVersions",
    params: { id: s.ids.policy! },
    body: { document: { schemaVersion: 1, telemetry: { ebpf: "off" } }, comment: "no eBPF", basedOnVersion: 1 },
    status: 201,
  }),
  (s) => ({
    operationId: "postPoliciesByIdVersions",
    params: { id: s.ids.policy! },
    body: { document: { schemaVersion: 1, telemetry: { ebpf: "sometimes" } } },
    status: 422,
  }),
  (s) => ({ operationId: "patchPoliciesById", params: { id: s.ids.policy! }, body: { description: "database servers" }, status: 200 }),
  (s) => ({
    operationId: "postPoliciesAssignments",
    body: { scope: "server", policyId: s.ids.policy!, serverId: s.serverId },
    status: 201,
    andThen: (b, st) => (st.ids.assignment = b.assignment.id),
  }),
  (s) => ({ operationId: "getPoliciesServersByServerId", params: { serverId: s.serverId }, status: 200 }),
  (s) => ({
    operationId: "putPoliciesServersByServerIdTags",
    params: { serverId: s.serverId },
    body: { tags: ["db", "prod"] },
    status: 200,
  }),
  (s) => ({ operationId: "getPoliciesByIdVersionsByVersionVerdict", params: { id: s.ids.policy!, version: "2" }, status: 200 }),
  (s) => ({ operationId: "deletePoliciesAssignmentsById", params: { id: s.ids.assignment! }, status: 200 }),

  () => ({ operationId: "getSettingsRollouts", status: 200 }),
  () => ({ operationId: "putSettingsRollouts", body: { rolloutsRequired: false }, status: 403, as: "viewer" }),
  () => ({ operationId: "putSettingsRollouts", body: { rolloutsRequired: false }, status: 401, as: "anonymous" }),
  () => ({ operationId: "putSettingsRollouts", body: { rolloutsRequired: true }, status: 403 }),
  () => ({ operationId: "putSettingsRollouts", body: { rolloutsRequired: true }, status: 200, as: "session" }),
  (s) => ({
    operationId: "postPoliciesAssignments",
    body: { scope: "organization", policyId: s.ids.policy!, delivery: { mode: "rollout" } },
    status: 201,
    andThen: (b, st) => (st.ids.rollout = b.delivery.rolloutId),
  }),
  () => ({ operationId: "getRollouts", query: { active: "1" }, status: 200 }),
  (s) => ({ operationId: "getRolloutsById", params: { id: s.ids.rollout! }, status: 200 }),
  ...readableByViewerOnly((s) => ({ operationId: "getRolloutsById", params: { id: s.ids.rollout! } })),
  () => ({
    operationId: "getRollouts",
    status: 200,
    as: "stranger",
    andThen: (b: { rollouts: { id: string }[] }, st) => {
      if (b.rollouts.some((r) => r.id === st.ids.rollout))
        throw new Error("another organisation's token lists this organisation's rollout");
    },
  }),
  // No one but an admin of this organisation may pause, resume, roll back, abort or override it;
  // the admin's pause below answers 200, so none of these changed its state.
  ...(["pause", "resume", "rollback", "abort"] as const).flatMap((action) =>
    refusedToOthers((s) => ({ operationId: "postRolloutsByIdByAction", params: { id: s.ids.rollout!, action } })),
  ),
  ...refusedToOthers((s) => ({
    operationId: "postRolloutsByIdOverride",
    params: { id: s.ids.rollout! },
    body: { wave: 0, reason: "not theirs to approve" },
  })),
  (s) => ({ operationId: "postRolloutsByIdByAction", params: { id: s.ids.rollout!, action: "pause" }, status: 200 }),
  (s) => ({ operationId: "postRolloutsByIdByAction", params: { id: s.ids.rollout!, action: "pause" }, status: 409 }),
  (s) => ({ operationId: "postRolloutsByIdByAction", params: { id: s.ids.rollout!, action: "resume" }, status: 200 }),
  (s) => ({
    operationId: "postRolloutsByIdOverride",
    params: { id: s.ids.rollout! },
    body: { wave: 0, reason: "the canary is idle" },
    status: 409,
  }),
  (s) => ({ operationId: "postRolloutsByIdByAction", params: { id: s.ids.rollout!, action: "abort" }, status: 200 }),
  () => ({ operationId: "getRolloutsNotices", status: 200 }),
  () => ({ operationId: "getRolloutsById", params: { id: "00000000-0000-4000-8000-000000000000" }, status: 404 }),

  () => ({ operationId: "getAlerts", status: 200 }),
  () => ({ operationId: "getAlertsHistory", query: { state: "firing" }, status: 200 }),
  () => ({ operationId: "getAlertsRules", status: 200 }),
  () => ({ operationId: "postAlertsRules", body: rule, status: 201, andThen: (b, s) => (s.ids.rule = b.rule.id) }),
  (s) => ({ operationId: "getAlertsRulesById", params: { id: s.ids.rule! }, status: 200 }),
  (s) => ({ operationId: "putAlertsRulesById", params: { id: s.ids.rule! }, body: { ...rule, threshold: 20 }, status: 200 }),
  (s) => ({ operationId: "patchAlertsRulesById", params: { id: s.ids.rule! }, body: { enabled: false }, status: 200 }),
  () => ({ operationId: "postAlertsRulesPreview", body: rule, status: 200 }),
  (s) => ({ operationId: "postAlertsByIdAcknowledge", params: { id: s.alertId }, body: { note: "looking" }, status: 200 }),
  (s) => ({ operationId: "postAlertsByIdAcknowledge", params: { id: s.alertId }, body: {}, status: 409 }),
  () => ({ operationId: "getAlertsSilences", status: 200 }),
  () => ({
    operationId: "postAlertsSilences",
    body: {
      ruleId: null,
      scope: { scope: "organization" },
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + hour).toISOString(),
      comment: "maintenance",
    },
    status: 201,
    andThen: (b, s) => (s.ids.silence = b.silence.id),
  }),
  (s) => ({ operationId: "postAlertsSilencesByIdCancel", params: { id: s.ids.silence! }, status: 200 }),
  (s) => ({ operationId: "deleteAlertsRulesById", params: { id: s.ids.rule! }, status: 200 }),

  () => ({ operationId: "getAlertsChannels", status: 200 }),
  () => ({
    operationId: "postAlertsChannels",
    body: { name: "Receiver", kind: "webhook", config: { url: "https://hooks.example.com/spindle" }, secrets: {} },
    status: 201,
    andThen: (b, s) => (s.ids.channel = b.channel.id),
  }),
  (s) => ({ operationId: "patchAlertsChannelsById", params: { id: s.ids.channel! }, body: { name: "Ops receiver" }, status: 200 }),
  (s) => ({
    operationId: "postAlertsChannelsByIdRoutes",
    params: { id: s.ids.channel! },
    body: { severities: ["critical"], scope: "organization" },
    status: 201,
    andThen: (b, st) => (st.ids.route = b.channel.routes[0].id),
  }),
  (s) => ({
    operationId: "postAlertsChannelsByIdTest",
    params: { id: s.ids.channel! },
    status: 202,
    andThen: (b, st) => (st.ids.notification = b.notificationId),
  }),
  (s) => ({ operationId: "getAlertsNotificationsById", params: { id: s.ids.notification! }, status: 200 }),
  (s) => ({ operationId: "deleteAlertsRoutesById", params: { id: s.ids.route! }, status: 200 }),
  (s) => ({ operationId: "deleteAlertsChannelsById", params: { id: s.ids.channel! }, status: 200 }),

  (s) => ({ operationId: "getRecommendations", query: { serverId: s.serverId }, status: 200 }),
  (s) => ({ operationId: "postRecommendationsByIdApply", params: { id: s.applyRecommendationId }, status: 200 }),
  (s) => ({ operationId: "postRecommendationsByIdDismiss", params: { id: s.otherRecommendationId }, status: 200 }),
  (s) => ({ operationId: "postRecommendationsByIdReopen", params: { id: s.otherRecommendationId }, status: 200 }),
  (s) => ({ operationId: "postRecommendationsByIdSnooze", params: { id: s.otherRecommendationId }, body: { days: 7 }, status: 200 }),

  (s) => ({ operationId: "getServersByIdProofRuns", params: { id: s.serverId }, status: 200 }),
  (s) => ({
    operationId: "postServersByIdProofRuns",
    params: { id: s.serverId },
    body: { profile: "fileserver", dataPath: "/srv/proof", sizeLimitMiB: 8, timeLimitSeconds: 60, stepSeconds: 1 },
    status: 201,
    andThen: (b, st) => (st.ids.run = b.run.id),
  }),
  (s) => ({ operationId: "getProofRunsByRunId", params: { runId: s.ids.run! }, status: 200 }),
  (s) => ({ operationId: "postProofRunsByRunIdCancel", params: { runId: s.ids.run! }, status: 200 }),
  (s) => ({ operationId: "getProofRunsByRunIdCsv", params: { runId: s.finishedRunId }, status: 200 }),
  (s) => ({ operationId: "getProofRunsByRunIdCsv", params: { runId: s.finishedRunId }, query: { what: "passes" }, status: 200 }),
  (s) => ({
    operationId: "getProofRunsByRunIdCsv",
    params: { runId: s.finishedRunId },
    query: { what: "all" },
    status: 400,
    invalid: true,
  }),
  (s) => ({ operationId: "getProofRunsByRunIdCsv", params: { runId: s.ids.run! }, status: 409 }),

  () => ({ operationId: "getAgentUpgrades", status: 200 }),
  (s) => ({
    operationId: "postAgentUpgrades",
    body: { targetVersion: "9.9.0", scope: { kind: "servers", serverIds: [s.serverId] } },
    status: 403,
    as: "viewer",
  }),
  (s) => ({
    operationId: "postAgentUpgrades",
    body: { targetVersion: "9.9.0", scope: { kind: "servers", serverIds: [s.serverId] } },
    status: 201,
    andThen: (b, st) => (st.ids.rollout = b.rollout.id),
  }),
  (s) => ({ operationId: "getAgentUpgradesById", params: { id: s.ids.rollout! }, status: 200 }),
  ...readableByViewerOnly((s) => ({ operationId: "getAgentUpgradesById", params: { id: s.ids.rollout! } })),
  // The admin's pause below answers 200: none of these paused, resumed or cancelled it.
  ...(["pause", "resume", "cancel", "override"] as const).flatMap((action) =>
    refusedToOthers((s) => ({
      operationId: "postAgentUpgradesByIdByAction",
      params: { id: s.ids.rollout!, action },
      body: action === "override" ? { reason: "contract" } : {},
    })),
  ),
  // Its canary has not been judged: there is no hold to override.
  (s) => ({
    operationId: "postAgentUpgradesByIdByAction",
    params: { id: s.ids.rollout!, action: "override" },
    body: { reason: "contract" },
    status: 409,
  }),
  (s) => ({ operationId: "postAgentUpgradesByIdByAction", params: { id: s.ids.rollout!, action: "pause" }, body: {}, status: 200 }),
  (s) => ({ operationId: "postAgentUpgradesByIdByAction", params: { id: s.ids.rollout!, action: "cancel" }, body: {}, status: 200 }),
  (s) => ({ operationId: "getServersByIdAgentVersion", params: { id: s.serverId }, status: 200 }),
  (s) => ({
    operationId: "putServersByIdAgentVersion",
    params: { id: s.serverId },
    body: { version: "9.9.0", reason: "contract" },
    status: 200,
  }),
  (s) => ({ operationId: "deleteServersByIdAgentVersion", params: { id: s.serverId }, status: 200 }),

  () => ({ operationId: "getMembers", status: 200 }),
  (s) => ({ operationId: "postMembersByIdSignOut", params: { id: s.viewerMemberId }, status: 200 }),

  () => ({ operationId: "getApiTokens", status: 200 }),
  () => ({
    operationId: "postApiTokens",
    body: { name: "made by a token", role: "viewer", expiresInDays: 7 },
    status: 201,
    andThen: (b, s) => (s.ids.token = b.token.id),
  }),
  (s) => ({ operationId: "deleteApiTokensById", params: { id: s.ids.token! }, status: 200 }),

  () => ({ operationId: "getOrganizationSecurity", status: 200 }),
  () => ({ operationId: "patchOrganizationSecurity", body: { requireMfa: true }, status: 403 }),
  () => ({ operationId: "patchOrganizationSecurity", body: { requireMfa: true }, status: 409, as: "session" }),
  () => ({ operationId: "patchOrganizationSecurity", body: { requireMfa: false }, status: 200, as: "session" }),
  (s) => ({
    operationId: "putOrganizationSso",
    body: { issuer: s.issuer, clientId: "spindle", clientSecret: "s3cret", domain: "example.com" },
    status: 403,
  }),
  (s) => ({
    operationId: "putOrganizationSso",
    body: { issuer: s.issuer, clientId: "spindle", clientSecret: "s3cret", domain: "example.com", defaultRole: "viewer", enforced: false },
    status: 200,
    as: "session",
  }),
  () => ({
    operationId: "putOrganizationSso",
    body: { issuer: "http://10.1.2.3:8080", clientId: "spindle", domain: "example.com" },
    status: 422,
    as: "session",
  }),
  () => ({ operationId: "deleteOrganizationSso", status: 403 }),
  () => ({ operationId: "deleteOrganizationSso", status: 200, as: "session" }),

  () => ({ operationId: "getServersFacets", status: 200 }),
  (s) => ({
    operationId: "postServersBulk",
    body: { action: "tag", tag: "contract", target: { serverIds: [s.serverId] }, preview: true },
    status: 200,
  }),
  (s) => ({ operationId: "postServersBulk", body: { action: "tag", tag: "contract", target: { serverIds: [s.serverId] } }, status: 200 }),
  () => ({
    operationId: "postServersBulk",
    body: { action: "tag", tag: "contract", target: { filter: {}, expectedCount: 99 } },
    status: 409,
  }),
  (s) => ({ operationId: "getAnnotations", query: { servers: s.serverId, range: "24h" }, status: 200 }),
  (s) => ({
    operationId: "getCompare",
    query: { servers: `${s.serverId},${s.doomedServerId}`, metric: "readIops", range: "1h" },
    status: 200,
  }),

  (s) => ({ operationId: "postServersByIdRevoke", params: { id: s.doomedServerId }, status: 200 }),
  (s) => ({ operationId: "postServersByIdAllowReenrolment", params: { id: s.doomedServerId }, status: 200 }),
  (s) => ({ operationId: "deleteServersById", params: { id: s.doomedServerId }, status: 200 }),
  (s) => ({ operationId: "getServersById", params: { id: s.doomedServerId }, status: 404 }),
];
