// Every documented route file of the console's API, for the OpenAPI document. A test
// (lib/openapi/registry.test.ts) fails when a route file under app/api is missing here, so a new
// route cannot go undocumented. better-auth's own routes (/api/auth), the probes and this
// document are the only files left out.
import type { ApiRouteModule } from "@/modules/api-reference/lib/build-document";
import * as u0 from "../agent-upgrades/[id]/[action]/route";
import * as u1 from "../agent-upgrades/[id]/route";
import * as u2 from "../agent-upgrades/route";
import * as u3 from "../servers/[id]/agent-version/route";
import * as r0 from "../alerts/[id]/acknowledge/route";
import * as r1 from "../alerts/channels/[id]/route";
import * as r2 from "../alerts/channels/[id]/routes/route";
import * as r3 from "../alerts/channels/[id]/test/route";
import * as r4 from "../alerts/channels/route";
import * as r5 from "../alerts/history/route";
import * as r6 from "../alerts/notifications/[id]/route";
import * as r7 from "../alerts/route";
import * as r8 from "../alerts/routes/[id]/route";
import * as r9 from "../alerts/rules/[id]/route";
import * as r10 from "../alerts/rules/preview/route";
import * as r11 from "../alerts/rules/route";
import * as r12 from "../alerts/silences/[id]/cancel/route";
import * as r13 from "../alerts/silences/route";
import * as r14 from "../api-tokens/[id]/route";
import * as r15 from "../api-tokens/route";
import * as r16 from "../proof-runs/[runId]/cancel/route";
import * as r17 from "../proof-runs/[runId]/csv/route";
import * as r18 from "../proof-runs/[runId]/route";
import * as r19 from "../enrollment-tokens/[id]/route";
import * as r20 from "../enrollment-tokens/route";
import * as r21 from "../gains/export/route";
import * as r22 from "../gains/route";
import * as r23 from "../members/[id]/sign-out/route";
import * as r24 from "../members/route";
import * as r25 from "../organization/security/route";
import * as r26 from "../organization/sso/route";
import * as r27 from "../policies/[id]/route";
import * as r28 from "../policies/[id]/versions/[version]/verdict/route";
import * as r29 from "../policies/[id]/versions/route";
import * as r30 from "../policies/assignments/[id]/route";
import * as r31 from "../policies/assignments/route";
import * as r32 from "../policies/route";
import * as r33 from "../policies/servers/[serverId]/route";
import * as r34 from "../policies/servers/[serverId]/tags/route";
import * as r35 from "../recommendations/[id]/apply/route";
import * as r36 from "../recommendations/[id]/dismiss/route";
import * as r37 from "../recommendations/[id]/reopen/route";
import * as r38 from "../recommendations/[id]/snooze/route";
import * as r39 from "../recommendations/route";
import * as r40 from "../servers/[id]/allow-reenrolment/route";
import * as r41 from "../servers/[id]/proof-runs/route";
import * as r42 from "../servers/[id]/cache-curves/route";
import * as r43 from "../servers/[id]/deep-telemetry/route";
import * as r44 from "../servers/[id]/gains/route";
import * as r45 from "../servers/[id]/gains/verdict/route";
import * as r46 from "../servers/[id]/metrics/route";
import * as r47 from "../servers/[id]/revoke/route";
import * as r48 from "../servers/[id]/route";
import * as r49 from "../servers/route";
import * as r50 from "../servers/[id]/families/route";
import * as r51 from "../annotations/route";
import * as r52 from "../compare/route";
import * as r53 from "../servers/bulk/route";
import * as r54 from "../servers/facets/route";
import * as r55 from "../rollouts/[id]/[action]/route";
import * as r56 from "../rollouts/[id]/override/route";
import * as r57 from "../rollouts/[id]/route";
import * as r58 from "../rollouts/notices/route";
import * as r59 from "../rollouts/route";
import * as r60 from "../settings/rollouts/route";

export const apiRouteFiles: ApiRouteModule[] = [
  { path: "/api/agent-upgrades/[id]/[action]", module: u0 },
  { path: "/api/agent-upgrades/[id]", module: u1 },
  { path: "/api/agent-upgrades", module: u2 },
  { path: "/api/servers/[id]/agent-version", module: u3 },
  { path: "/api/alerts/[id]/acknowledge", module: r0 },
  { path: "/api/alerts/channels/[id]", module: r1 },
  { path: "/api/alerts/channels/[id]/routes", module: r2 },
  { path: "/api/alerts/channels/[id]/test", module: r3 },
  { path: "/api/alerts/channels", module: r4 },
  { path: "/api/alerts/history", module: r5 },
  { path: "/api/alerts/notifications/[id]", module: r6 },
  { path: "/api/alerts", module: r7 },
  { path: "/api/alerts/routes/[id]", module: r8 },
  { path: "/api/alerts/rules/[id]", module: r9 },
  { path: "/api/alerts/rules/preview", module: r10 },
  { path: "/api/alerts/rules", module: r11 },
  { path: "/api/alerts/silences/[id]/cancel", module: r12 },
  { path: "/api/alerts/silences", module: r13 },
  { path: "/api/api-tokens/[id]", module: r14 },
  { path: "/api/api-tokens", module: r15 },
  { path: "/api/proof-runs/[runId]/cancel", module: r16 },
  { path: "/api/proof-runs/[runId]/csv", module: r17 },
  { path: "/api/proof-runs/[runId]", module: r18 },
  { path: "/api/enrollment-tokens/[id]", module: r19 },
  { path: "/api/enrollment-tokens", module: r20 },
  { path: "/api/gains/export", module: r21 },
  { path: "/api/gains", module: r22 },
  { path: "/api/members/[id]/sign-out", module: r23 },
  { path: "/api/members", module: r24 },
  { path: "/api/organization/security", module: r25 },
  { path: "/api/organization/sso", module: r26 },
  { path: "/api/policies/[id]", module: r27 },
  { path: "/api/policies/[id]/versions/[version]/verdict", module: r28 },
  { path: "/api/policies/[id]/versions", module: r29 },
  { path: "/api/policies/assignments/[id]", module: r30 },
  { path: "/api/policies/assignments", module: r31 },
  { path: "/api/policies", module: r32 },
  { path: "/api/policies/servers/[serverId]", module: r33 },
  { path: "/api/policies/servers/[serverId]/tags", module: r34 },
  { path: "/api/recommendations/[id]/apply", module: r35 },
  { path: "/api/recommendations/[id]/dismiss", module: r36 },
  { path: "/api/recommendations/[id]/reopen", module: r37 },
  { path: "/api/recommendations/[id]/snooze", module: r38 },
  { path: "/api/recommendations", module: r39 },
  { path: "/api/servers/[id]/allow-reenrolment", module: r40 },
  { path: "/api/servers/[id]/proof-runs", module: r41 },
  { path: "/api/servers/[id]/cache-curves", module: r42 },
  { path: "/api/servers/[id]/deep-telemetry", module: r43 },
  { path: "/api/servers/[id]/gains", module: r44 },
  { path: "/api/servers/[id]/gains/verdict", module: r45 },
  { path: "/api/servers/[id]/metrics", module: r46 },
  { path: "/api/servers/[id]/revoke", module: r47 },
  { path: "/api/servers/[id]", module: r48 },
  { path: "/api/servers", module: r49 },
  { path: "/api/servers/[id]/families", module: r50 },
  { path: "/api/annotations", module: r51 },
  { path: "/api/compare", module: r52 },
  { path: "/api/servers/bulk", module: r53 },
  { path: "/api/servers/facets", module: r54 },
  { path: "/api/rollouts/[id]/[action]", module: r55 },
  { path: "/api/rollouts/[id]/override", module: r56 },
  { path: "/api/rollouts/[id]", module: r57 },
  { path: "/api/rollouts/notices", module: r58 },
  { path: "/api/rollouts", module: r59 },
  { path: "/api/settings/rollouts", module: r60 },
];

/** Route files the document leaves out on purpose. */
export const undocumentedRouteFiles = ["/api/auth/[...all]", "/api/healthz", "/api/livez", "/api/openapi.json"];

export const apiTags = [
  { name: "Servers", description: "The fleet: servers, their agents' credentials." },
  { name: "Metrics", description: "Time series of a server: disks, memory, storage telemetry, miss-ratio curves." },
  { name: "Enrolment", description: "Tokens that enrol agents (the install one-liner)." },
  { name: "Policies", description: "Cache and write policies: versions, assignments, a server's effective policy." },
  { name: "Gains", description: "What the acceleration features caused, with its basis (docs/gains.md)." },
  { name: "Alerts", description: "Open alerts, history, rules, previews and silences (docs/alerts.md)." },
  { name: "Notification channels", description: "Where alerts are sent, routes and deliveries (docs/notifications.md)." },
  {
    name: "Rollouts",
    description: 'Policy changes going out in guarded waves: progress, guards\' readings, controls (docs/policy.md "Rollouts").',
  },
  { name: "Recommendations", description: "Tuning recommendations with a predicted and realised effect." },
  { name: "Proof runs", description: "A/B proof runs started on a server, and their reports." },
  { name: "Members", description: "Who belongs to the organisation." },
  { name: "API tokens", description: "Tokens for scripts and Terraform (docs/api.md)." },
  { name: "Security", description: "MFA requirement and single sign-on of the organisation (owners)." },
];
