import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditEntryLink, describeAuditEntry } from "./describe-audit-entry";

describe("audit entry sentences", () => {
  it("says what happened in words, from the recorded details", () => {
    assert.equal(
      describeAuditEntry({
        action: "policy.version_saved",
        target: "p",
        details: { name: "Postgres", version: 3, comment: "bigger cache" },
      }),
      "saved version 3 of “Postgres”: bigger cache",
    );
    assert.equal(
      describeAuditEntry({ action: "policy.assigned", target: "p", details: { name: "Web", target: "tag web", replaced: "Old" } }),
      "assigned “Web” to tag web (replacing “Old”)",
    );
    assert.equal(
      describeAuditEntry({
        action: "server.tags_changed",
        target: "s",
        details: { hostname: "db-7", before: [], after: ["alpha", "beta"] },
      }),
      "changed the tags of db-7 from none to alpha, beta",
    );
    assert.equal(describeAuditEntry({ action: "member.archived", target: "u1", details: {} }), "member.archived (u1)");
    assert.equal(
      describeAuditEntry({ action: "member.removed", target: "m1", details: { email: "a@example.com", role: "admin" } }),
      "removed a@example.com (admin)",
    );
    assert.equal(
      describeAuditEntry({
        action: "member.role_changed",
        target: "m1",
        details: { email: "a@example.com", from: "viewer", role: "admin" },
      }),
      "changed the role of a@example.com from viewer to admin",
    );
    assert.equal(
      describeAuditEntry({ action: "alert_rule.updated", target: "r1", details: { name: "Reads", changed: ["threshold", "severity"] } }),
      "edited alert rule “Reads” (threshold, severity)",
    );
    assert.equal(
      describeAuditEntry({
        action: "alert_silence.created",
        target: "s1",
        details: { rule: null, scope: "server", endsAt: "2026-11-24T02:00:00.000Z", comment: "disk swap" },
      }),
      "silenced all rules (server) until 2026-11-24T02:00:00.000Z: disk swap",
    );
    assert.equal(
      describeAuditEntry({
        action: "notification_route.created",
        target: "c1",
        details: { name: "Ops", severities: ["critical"], scope: "organization" },
      }),
      "routed critical alerts (organization) to “Ops”",
    );
    assert.equal(
      describeAuditEntry({ action: "server.revoked", target: "s1", details: { hostname: "db01" } }),
      "revoked the agent credential of db01",
    );
    assert.equal(
      describeAuditEntry({
        action: "auth.sign_in_failed",
        target: "u1",
        details: { email: "a@example.com", reason: "wrong password", address: "203.0.113.7" },
      }),
      "a sign-in as a@example.com failed: wrong password (from 203.0.113.7)",
    );
    assert.equal(
      describeAuditEntry({
        action: "auth.signed_in",
        target: "s1",
        details: { email: "a@example.com", method: "password and authenticator code", address: null },
      }),
      "a@example.com signed in (password and authenticator code) from an unknown address",
    );
    assert.equal(
      describeAuditEntry({ action: "api_token.created", target: "t1", details: { name: "ci", role: "viewer" } }),
      "created the viewer API token “ci”",
    );
    assert.equal(
      describeAuditEntry({
        action: "member.added",
        target: "u1",
        details: { email: "ana@acme.test", role: "viewer", via: "single sign-on" },
      }),
      "added ana@acme.test as viewer (single sign-on)",
    );
    assert.equal(
      describeAuditEntry({ action: "auth.sso_refused", target: "p", details: { email: "eve@other.test", reason: "not in acme.test" } }),
      "single sign-on refused eve@other.test: not in acme.test",
    );
  });

  it("says what rollouts did, automatic rollbacks with the guard's reason", () => {
    assert.equal(
      describeAuditEntry({ action: "rollout.created", target: "r", details: { title: "Policy “db” version 2", servers: 12, waves: 4 } }),
      "started the rollout “Policy “db” version 2” (12 servers in 4 waves)",
    );
    assert.equal(
      describeAuditEntry({
        action: "rollout.rolled_back",
        target: "r",
        details: { title: "Policy “db” version 2", automatic: true, reason: "1 server refused the policy." },
      }),
      "rolled back the rollout “Policy “db” version 2” automatically: 1 server refused the policy.",
    );
    assert.equal(
      describeAuditEntry({ action: "rollout.guard_overridden", target: "r", details: { title: "T", wave: 0, reason: "watched it" } }),
      "overrode the guards of wave 0 of “T”: watched it",
    );
    assert.equal(
      describeAuditEntry({ action: "policy.applied_now", target: "p", details: { title: "Policy “db” version 3", slots: ["tag db"] } }),
      "applied “Policy “db” version 3” at once, without a rollout, to tag db",
    );
    assert.equal(auditEntryLink({ action: "rollout.completed", target: "r1" }), "/rollouts/r1");
    assert.equal(auditEntryLink({ action: "rollout.settings_changed", target: "" }), "/settings/rollouts");
  });

  it("says when an entry came from a bulk action on the fleet page", () => {
    assert.equal(
      describeAuditEntry({
        action: "server.tags_changed",
        target: "s",
        details: { hostname: "web-3", before: [], after: ["frontend"], bulk: { id: "b", action: "tag", servers: 10 } },
      }),
      "changed the tags of web-3 from none to frontend (bulk action on 10 servers)",
    );
    assert.equal(
      describeAuditEntry({
        action: "policy.assigned",
        target: "p",
        details: { name: "Web", target: "server web-3", replaced: null, bulk: { id: "b", servers: 2 } },
      }),
      "assigned “Web” to server web-3 (bulk action on 2 servers)",
    );
  });

  it("links to the subject's page", () => {
    assert.equal(auditEntryLink({ action: "policy.created", target: "abc" }), "/policies/abc");
    assert.equal(auditEntryLink({ action: "server.tags_changed", target: "s1" }), "/servers/s1");
    assert.equal(auditEntryLink({ action: "member.removed", target: "x" }), null);
    assert.equal(auditEntryLink({ action: "alert_rule.disabled", target: "r1" }), "/alerts/rules/r1");
    assert.equal(auditEntryLink({ action: "alert_rule.deleted", target: "r1" }), "/alerts/rules");
    assert.equal(auditEntryLink({ action: "alert_silence.created", target: "s1" }), "/alerts/silences");
    assert.equal(auditEntryLink({ action: "recommendation.applied", target: "r1" }), "/recommendations");
    assert.equal(auditEntryLink({ action: "notification_route.created", target: "c1" }), "/alerts/channels");
    assert.equal(auditEntryLink({ action: "api_token.revoked", target: "t1" }), "/settings/api-tokens");
    assert.equal(auditEntryLink({ action: "sso.configured", target: "o1" }), "/settings/security");
  });

  it("describes and links proof-run entries under both names the log has used", () => {
    // Entries written before migration 20261128220100_proof_runs say bench_run.*; later ones proof_run.*.
    for (const prefix of ["proof_run", "bench_run"]) {
      assert.equal(
        describeAuditEntry({ action: `${prefix}.requested`, target: "r1", details: { profile: "sqlio", hostname: "db01" } }),
        "requested a sqlio proof run on db01",
      );
      assert.equal(
        describeAuditEntry({ action: `${prefix}.cancelled`, target: "r1", details: { hostname: "db01", was: "running" } }),
        "cancelled the proof run on db01 (it was running)",
      );
      assert.equal(auditEntryLink({ action: `${prefix}.requested`, target: "r1" }), "/proof-runs/r1");
    }
  });
});
