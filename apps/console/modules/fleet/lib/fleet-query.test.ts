// The fleet's query string: what a shared link may carry, and a clear error for anything else.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bulkActionSchema } from "../types/bulk";
import { filterOf, fleetQuerySchema, fleetQueryString } from "../types/fleet-query";
import { fleetWhere, likePattern } from "./fleet-sql";

function problems(input: Record<string, unknown>): string[] {
  const result = fleetQuerySchema.safeParse(input);
  assert.equal(result.success, false, `${JSON.stringify(input)} should be refused`);
  return result.error!.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("the fleet query string", () => {
  it("takes every filter, sort, page and grouping, with defaults", () => {
    const query = fleetQuerySchema.parse({
      q: " web ",
      status: "online",
      tag: "Frontend",
      os: "Debian GNU/Linux 12 (bookworm)",
      kernel: "6.1.0",
      agent: "0.2.0",
      missing: "ebpf.mrc",
      alert: "critical",
      policy: "failed",
      sort: "firing",
      dir: "desc",
      page: "3",
      pageSize: "100",
      group: "tag",
    });
    assert.deepEqual(query, {
      q: "web",
      status: "online",
      tag: "frontend",
      os: "Debian GNU/Linux 12 (bookworm)",
      kernel: "6.1.0",
      agent: "0.2.0",
      missing: "ebpf.mrc",
      alert: "critical",
      policy: "failed",
      sort: "firing",
      dir: "desc",
      page: 3,
      pageSize: 100,
      group: "tag",
    });
    assert.deepEqual(fleetQuerySchema.parse({}), { sort: "hostname", dir: "asc", page: 1, pageSize: 50 });
  });

  it("names the parameter and what it accepts for unknown values", () => {
    assert.deepEqual(problems({ status: "up" }), ["status: status is one of: online, offline, waiting"]);
    assert.match(problems({ missing: "ebpf.everything" })[0]!, /^missing: missing \(a capability\) is one of: ebpf\.block_latency, /);
    assert.deepEqual(problems({ alert: "loud" }), ["alert: alert is one of: firing, critical, warning, info, none"]);
    assert.deepEqual(problems({ policy: "ok" }), ["policy: policy is one of: applied, pending, failed, invalid"]);
    assert.deepEqual(problems({ sort: "ram" }), [
      "sort: sort is one of: hostname, status, os, kernel, agentVersion, lastSeen, firing, policy",
    ]);
    assert.deepEqual(problems({ pageSize: "30" }), ["pageSize: pageSize is one of 25, 50, 100, 200"]);
    assert.deepEqual(problems({ page: "0" }), ["page: page starts at 1"]);
    assert.deepEqual(problems({ page: "two" }), ["page: page is a whole number"]);
    assert.deepEqual(problems({ group: "os" }), ["group: group is one of: tag"]);
    assert.match(problems({ tag: "no spaces" })[0]!, /^tag: A tag is 1–63 lowercase letters/);
    assert.deepEqual(problems({ kernel: "  " }), ["kernel: kernel is empty: leave it out to show every kernel"]);
    assert.deepEqual(problems({ tag: "db", untagged: "true" }), ["untagged: ask for a tag or for untagged servers, not both"]);
    assert.match(
      problems({ colour: "red" })[0]!,
      /^: unknown parameter colour: the fleet takes q, status, tag, untagged, os, kernel, agent, missing, alert, policy, sort/,
    );
  });

  it("round-trips through the URL, leaving defaults out", () => {
    const query = fleetQuerySchema.parse({ tag: "db", sort: "status", page: "2" });
    assert.equal(fleetQueryString(query), "tag=db&sort=status&page=2");
    assert.deepEqual(fleetQuerySchema.parse(Object.fromEntries(new URLSearchParams(fleetQueryString(query)))), query);
    assert.deepEqual(filterOf(query), { tag: "db" });
  });

  it("turns filters into bind parameters only, never into SQL text", () => {
    const where = fleetWhere({ q: "x'; DROP TABLE servers; --", tag: "db", missing: "ebpf.mrc", alert: "warning" }, 3);
    assert.equal(
      where.text,
      "WHERE (hostname ILIKE $3 OR array_to_string(tags, ' ') ILIKE $3) AND $4 = ANY(tags) AND capabilities_reported AND NOT ($5 = ANY(capabilities)) AND firing_warning > 0",
    );
    assert.deepEqual(where.params, ["%x'; DROP TABLE servers; --%", "db", "ebpf.mrc"]);
    assert.equal(likePattern("50%_off\\"), "%50\\%\\_off\\\\%");
  });
});

describe("the bulk action request", () => {
  const fail = (input: unknown) => {
    const result = bulkActionSchema.safeParse(input);
    assert.equal(result.success, false);
    return result.error!.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("takes ids or a filter with the confirmed count", () => {
    const tagged = bulkActionSchema.parse({ action: "tag", tag: "Web", target: { serverIds: ["a"] } });
    assert.equal(tagged.action === "tag" && tagged.tag, "web");
    assert.equal(
      bulkActionSchema.parse({ action: "revoke", target: { filter: { status: "offline" }, expectedCount: 3 }, preview: true }).preview,
      true,
    );
  });

  it("refuses unknown actions, missing fields and bad targets with a message", () => {
    assert.deepEqual(fail({ action: "reboot", target: { serverIds: ["a"] } }), [
      "action: action is one of: tag, untag, assign-policy, revoke",
    ]);
    assert.match(fail({ action: "tag", target: { serverIds: ["a"] } })[0]!, /^tag: /);
    assert.deepEqual(fail({ action: "revoke", target: { serverIds: [] } }), ["target.serverIds: pick at least one server"]);
    assert.deepEqual(fail({ action: "revoke", target: { filter: { status: "up" }, expectedCount: 1 } }), [
      "target.filter.status: status is one of: online, offline, waiting",
    ]);
    assert.deepEqual(fail({ action: "revoke", target: { filter: { status: "offline" } } }), [
      "target.expectedCount: a filter target needs both filter and expectedCount (the number of matching servers the user confirmed)",
    ]);
    assert.deepEqual(fail({ action: "revoke", target: {} }), [
      "target: target is { serverIds: [...] } or { filter: {...}, expectedCount: n }",
    ]);
    assert.deepEqual(fail({ action: "revoke", target: { ids: ["a"] } }), [
      "target: unknown field ids: target takes serverIds, or filter and expectedCount",
      "target: target is { serverIds: [...] } or { filter: {...}, expectedCount: n }",
    ]);
    assert.deepEqual(fail({ action: "assign-policy", policyId: "", target: { serverIds: ["a"] } }), [
      "policyId: policyId names the policy to assign",
    ]);
  });
});
