// Who may do what in an organisation. better-auth's organisation plugin enforces the `member`,
// `invitation` and `organization` statements on its own endpoints; our API routes check the
// fleet statements with can(). Viewers read everything in their organisation and change nothing.
import { createAccessControl } from "better-auth/plugins/access";
import { defaultStatements } from "better-auth/plugins/organization/access";

export const statements = {
  ...defaultStatements,
  enrollmentToken: ["create", "revoke"],
  // Policies: create them, save versions (update), and assign them or tag servers (assign).
  policy: ["create", "update", "assign"],
  // Proof runs: start an A/B benchmark on a server, cancel one.
  proofRun: ["start", "cancel"],
  // Servers: revoke the agent's credential, allow a re-enrolment, remove the server.
  server: ["revoke", "delete"],
  // Alerts: write rules (custom ones, edits of defaults, the enabled switch) and set or cancel silences.
  alertRule: ["create", "update", "delete"],
  alertSilence: ["create", "cancel"],
  // Firing alerts: acknowledge one ("I am on it"), which changes no rule and no state.
  alert: ["acknowledge"],
  // Notification channels and their routes; "test" sends a test message through a channel.
  notificationChannel: ["create", "update", "delete", "test"],
  // Recommendations: apply one (a new policy version), dismiss or snooze it.
  recommendation: ["apply", "dismiss"],
  // Rollouts: pause, resume, roll back, abort (control); let a holding wave pass (override);
  // switch the organisation's "every wide change is a rollout" setting (settings, owners only).
  rollout: ["control", "override", "settings"],
  // Agent upgrades: start one, pause, resume or cancel it, pin a server to a version.
  agentUpgrade: ["start", "control", "pin"],
  // API tokens (better-auth's api-key plugin checks these names): every member may create tokens
  // for themselves, acting with at most their own role.
  apiKey: ["create", "read", "update", "delete"],
  // Revoke another member's API token.
  apiToken: ["revoke"],
  // Sign a member out of every session.
  memberSession: ["revoke"],
  // Organisation security: require MFA, configure and enforce single sign-on. Owners only.
  security: ["update"],
} as const;

export const accessControl = createAccessControl(statements);

const manageOrganisation = {
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  enrollmentToken: ["create", "revoke"],
  policy: ["create", "update", "assign"],
  proofRun: ["start", "cancel"],
  server: ["revoke", "delete"],
  alertRule: ["create", "update", "delete"],
  alertSilence: ["create", "cancel"],
  alert: ["acknowledge"],
  notificationChannel: ["create", "update", "delete", "test"],
  recommendation: ["apply", "dismiss"],
  rollout: ["control", "override"],
  agentUpgrade: ["start", "control", "pin"],
  apiKey: ["create", "read", "update"],
  apiToken: ["revoke"],
  memberSession: ["revoke"],
} as const;

export const roles = {
  owner: accessControl.newRole({
    ...manageOrganisation,
    organization: ["update", "delete"],
    security: ["update"],
    rollout: ["control", "override", "settings"],
  }),
  admin: accessControl.newRole({ ...manageOrganisation, organization: ["update"], security: [] }),
  viewer: accessControl.newRole({
    organization: [],
    member: [],
    invitation: [],
    enrollmentToken: [],
    policy: [],
    proofRun: [],
    server: [],
    alertRule: [],
    alertSilence: [],
    alert: [],
    notificationChannel: [],
    recommendation: [],
    agentUpgrade: [],
    apiKey: ["create", "read", "update"],
    apiToken: [],
    memberSession: [],
    security: [],
    rollout: [],
  }),
};

/** Roles from least to most: a token acts with the lesser of its own role and its creator's. */
const rank: Record<RoleName, number> = { viewer: 0, admin: 1, owner: 2 };

export function lesserRole(a: RoleName, b: RoleName): RoleName {
  return rank[a] <= rank[b] ? a : b;
}

export type RoleName = keyof typeof roles;
export const roleNames = Object.keys(roles) as RoleName[];

export function isRoleName(value: string): value is RoleName {
  return value in roles;
}

type Permission = { [K in keyof typeof statements]?: (typeof statements)[K][number][] };

export function can(role: RoleName, permission: Permission): boolean {
  return roles[role].authorize(permission).success;
}
