// The fleet page's answers on a real database, as the console's role: every filter, the sort
// keys, paging past the end, groups with their counts and merged-histogram p99, and another
// organisation's servers never in any of it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation } from "@/test-support/fixtures";
import { FLEET_NOW, seedFleet, type FleetServerSpec } from "@/test-support/fleet-fixtures";
import { fleetQuerySchema, type FleetQueryInput } from "../types/fleet-query";
import { listFleetFacets } from "./fleet-facets";
import { queryFleet } from "./query-fleet";

const specs: FleetServerSpec[] = [
  {
    hostname: "web-01",
    lastSeenSecondsAgo: 5,
    tags: ["frontend", "prod"],
    agentVersion: "0.2.0",
    missing: [],
    firing: ["critical", "info"],
    policy: "applied",
    reads: { 5: 98, 20: 2 },
  },
  {
    hostname: "web-2",
    lastSeenSecondsAgo: 20,
    tags: ["frontend"],
    missing: ["ebpf.mrc"],
    policy: "failed",
    reads: { 5: 50, 10: 49, 12: 1 },
  },
  { hostname: "web-10", lastSeenSecondsAgo: 600, osVersion: "Ubuntu 22.04.3 LTS", kernel: "5.15.0-91-generic", firing: ["warning"] },
  {
    hostname: "db-01",
    lastSeenSecondsAgo: null,
    tags: ["db", "prod"],
    os: "windows",
    osVersion: "Windows Server 2022",
    kernel: "",
    agentVersion: "0.2.0",
    policy: "invalid",
    revoked: true,
  },
  ...Array.from(
    { length: 28 },
    (_, i): FleetServerSpec => ({ hostname: `batch-${String(i + 1).padStart(2, "0")}`, lastSeenSecondsAgo: 3600 }),
  ),
];

describe("the fleet query", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgA: string;
  let orgB: string;

  const query = (input: FleetQueryInput, org = orgA) => queryFleet(db, org, fleetQuerySchema.parse(input), FLEET_NOW);
  const hostnames = async (input: FleetQueryInput, org = orgA) => (await query(input, org)).servers.map((s) => s.hostname);

  before(async () => {
    db = await createTestDatabase();
    orgA = (await createOrganisation(db.prisma, "Alpha")).orgId;
    orgB = (await createOrganisation(db.prisma, "Beta")).orgId;
    await seedFleet(db.pool, orgA, specs);
    await seedFleet(db.pool, orgB, [{ hostname: "web-99", lastSeenSecondsAgo: 1, tags: ["frontend"], reads: { 27: 100 } }]);
  });
  after(() => db?.drop());

  it("lists a page in natural hostname order with the total and the fleet's size", async () => {
    const page = await query({});
    assert.equal(page.total, 32);
    assert.equal(page.fleetSize, 32);
    assert.equal(page.servers.length, Math.min(32, 50));
    assert.deepEqual(
      page.servers.slice(28).map((s) => s.hostname),
      ["db-01", "web-01", "web-2", "web-10"],
    );
    const web = page.servers.find((s) => s.hostname === "web-01")!;
    assert.equal(web.status, "online");
    assert.deepEqual([web.firing, web.firingSeverity, web.policyState, web.revoked], [2, "critical", "applied", false]);
    assert.deepEqual(web.missingCapabilities, []);
    assert.equal(page.servers.find((s) => s.hostname === "web-10")!.missingCapabilities, null, "not reported is not missing");
  });

  it("searches hostnames and tags, with % and _ as plain characters", async () => {
    assert.deepEqual(await hostnames({ q: "WEB" }), ["web-01", "web-2", "web-10"]);
    assert.deepEqual(await hostnames({ q: "front" }), ["web-01", "web-2"]);
    assert.deepEqual(await hostnames({ q: "web%" }), []);
    assert.deepEqual(await hostnames({ q: "b_0" }), []);
  });

  it("filters on status, tag, untagged, OS, kernel, agent version", async () => {
    assert.deepEqual(await hostnames({ status: "online" }), ["web-01", "web-2"]);
    assert.deepEqual(await hostnames({ status: "waiting" }), ["db-01"]);
    assert.equal((await query({ status: "offline" })).total, 29);
    assert.deepEqual(await hostnames({ tag: "frontend" }), ["web-01", "web-2"]);
    assert.deepEqual(await hostnames({ tag: "prod", q: "db" }), ["db-01"]);
    assert.deepEqual(await hostnames({ untagged: "true", q: "web" }), ["web-10"]);
    assert.deepEqual(await hostnames({ os: "Ubuntu 22.04.3 LTS" }), ["web-10"]);
    assert.deepEqual(await hostnames({ os: "Windows Server 2022" }), ["db-01"]);
    assert.deepEqual(await hostnames({ kernel: "5.15.0-91-generic" }), ["web-10"]);
    assert.deepEqual(await hostnames({ agent: "0.2.0" }), ["db-01", "web-01"]);
  });

  it("filters on a missing capability (reported missing, not unreported), firing alerts and policy state", async () => {
    assert.deepEqual(await hostnames({ missing: "ebpf.mrc" }), ["web-2"]);
    assert.deepEqual(await hostnames({ alert: "firing" }), ["web-01", "web-10"]);
    assert.deepEqual(await hostnames({ alert: "critical" }), ["web-01"]);
    assert.deepEqual(await hostnames({ alert: "info" }), ["web-01"]);
    assert.deepEqual(await hostnames({ alert: "warning" }), ["web-10"]);
    assert.equal((await query({ alert: "none" })).total, 30);
    assert.deepEqual(await hostnames({ policy: "failed" }), ["web-2"]);
    assert.deepEqual(await hostnames({ policy: "invalid" }), ["db-01"]);
    assert.deepEqual(await hostnames({ policy: "applied" }), ["web-01"]);
    assert.equal((await query({ policy: "pending" })).total, 29);
  });

  it("sorts on every column, hostname breaking ties", async () => {
    assert.deepEqual(await hostnames({ q: "web", sort: "hostname", dir: "desc" }), ["web-10", "web-2", "web-01"]);
    assert.deepEqual(await hostnames({ q: "web", sort: "firing", dir: "desc" }), ["web-01", "web-10", "web-2"]);
    assert.deepEqual(await hostnames({ q: "web", sort: "kernel" }), ["web-10", "web-01", "web-2"]);
    assert.deepEqual((await hostnames({ q: "-", sort: "status" })).slice(0, 2), ["web-01", "web-2"]);
    assert.equal((await hostnames({ q: "-", sort: "status" })).at(-1), "db-01");
    assert.deepEqual(await hostnames({ q: "web", sort: "policy" }), ["web-2", "web-10", "web-01"]);
    assert.deepEqual(await hostnames({ q: "web", sort: "lastSeen", dir: "desc" }), ["web-01", "web-2", "web-10"]);
    assert.deepEqual(await hostnames({ tag: "prod", sort: "os" }), ["web-01", "db-01"]);
    assert.deepEqual(await hostnames({ tag: "prod", sort: "agentVersion", dir: "desc" }), ["db-01", "web-01"]);
  });

  it("pages with no overlap, and past the last page answers the total with no rows", async () => {
    const first = await query({ pageSize: 25 });
    const second = await query({ pageSize: 25, page: 2 });
    assert.equal(first.servers.length, 25);
    assert.equal(second.servers.length, 7);
    assert.equal(new Set([...first.servers, ...second.servers].map((s) => s.id)).size, 32);
    const beyond = await query({ pageSize: 25, page: 3 });
    assert.deepEqual([beyond.servers.length, beyond.total, beyond.page], [0, 32, 3]);
  });

  it("groups by tag with counts and a p99 from merged histograms, and says caused gains are not measured", async () => {
    const page = await query({ group: "tag" });
    const groups = new Map(page.groups!.map((g) => [g.tag, g]));
    assert.deepEqual([...groups.keys()], ["db", "frontend", "prod", null]);
    const frontend = groups.get("frontend")!;
    assert.deepEqual([frontend.servers, frontend.online, frontend.firing], [2, 2, 1]);
    // web-01: 98 reads in bucket 5, 2 in bucket 20 (alone: p99 in 20); web-2: 50 in bucket 5, 49 in 10, 1 in 12 (alone:
    // p99 in 10). Added up, the 198th of 200 reads is the one in bucket 12: neither server's own p99, nor their average.
    assert.equal(frontend.p99ReadLatency.status, "measured");
    assert.equal(frontend.p99ReadLatency.status === "measured" && frontend.p99ReadLatency.upperSeconds, 2 ** 12 / 1e6);
    assert.match(
      frontend.p99ReadLatency.status === "measured" ? frontend.p99ReadLatency.basis : "",
      /descriptive.*2 servers, 10:59–11:59 UTC \(200 reads/,
    );
    const prod = groups.get("prod")!;
    assert.equal(
      prod.p99ReadLatency.status === "measured" && prod.p99ReadLatency.upperSeconds,
      2 ** 20 / 1e6,
      "web-01 alone: its 99th read is a slow one",
    );
    assert.equal(groups.get(null)!.servers, 29);
    assert.equal(groups.get(null)!.p99ReadLatency.status, "not-measured");
    for (const group of groups.values()) assert.equal(group.causedReadCacheGains.status, "not-measured");
    const web = page.servers.find((s) => s.hostname === "web-2")!;
    assert.equal(web.p99ReadLatency.status === "measured" && web.p99ReadLatency.upperSeconds, 2 ** 10 / 1e6);
  });

  it("says a summary the worker stopped refreshing is not current, rather than showing it", async () => {
    const later = new Date(FLEET_NOW.getTime() + 20 * 60_000);
    const page = await queryFleet(db, orgA, fleetQuerySchema.parse({ q: "web-01" }), later);
    assert.deepEqual(page.servers[0]!.p99ReadLatency.status, "not-measured");
    assert.match(
      page.servers[0]!.p99ReadLatency.status === "not-measured" ? page.servers[0]!.p99ReadLatency.reason : "",
      /is the worker running/,
    );
    const grouped = await queryFleet(db, orgA, fleetQuerySchema.parse({ tag: "frontend", group: "tag" }), later);
    const frontend = grouped.groups!.find((g) => g.tag === "frontend")!;
    assert.match(
      frontend.p99ReadLatency.status === "not-measured" ? frontend.p99ReadLatency.reason : "",
      /ends at 2026-11-28T11:59:00.000Z: is the worker running/,
    );
  });

  it("groups only what the filters match", async () => {
    const page = await query({ group: "tag", status: "online" });
    assert.deepEqual(
      page.groups!.map((g) => [g.tag, g.servers]),
      [
        ["frontend", 2],
        ["prod", 1],
      ],
    );
  });

  it("offers the fleet's own facet values with their counts, in natural order", async () => {
    const facets = await listFleetFacets(db, orgA);
    assert.deepEqual(facets.tags, [
      { value: "db", servers: 1 },
      { value: "frontend", servers: 2 },
      { value: "prod", servers: 2 },
    ]);
    assert.deepEqual(
      facets.os.map((o) => [o.value, o.servers]),
      [
        ["Debian GNU/Linux 12 (bookworm)", 30],
        ["Ubuntu 22.04.3 LTS", 1],
        ["Windows Server 2022", 1],
      ],
    );
    assert.deepEqual(
      facets.kernels.map((k) => k.value),
      ["5.15.0-91-generic", "6.1.0-18-amd64"],
    );
    assert.deepEqual(facets.agentVersions, [
      { value: "0.1.0", servers: 30 },
      { value: "0.2.0", servers: 2 },
    ]);
    assert.deepEqual((await listFleetFacets(db, orgB)).tags, [{ value: "frontend", servers: 1 }]);
  });

  it("never shows another organisation's servers, groups or latency", async () => {
    const page = await query({ group: "tag" }, orgB);
    assert.deepEqual(
      page.servers.map((s) => s.hostname),
      ["web-99"],
    );
    assert.deepEqual(
      page.groups!.map((g) => [g.tag, g.servers]),
      [["frontend", 1]],
    );
    assert.equal(
      page.groups![0]!.p99ReadLatency.status === "measured" && page.groups![0]!.p99ReadLatency.upperSeconds,
      null,
      "its own slow reads only",
    );
    assert.deepEqual(await hostnames({ tag: "frontend" }), ["web-01", "web-2"]);
  });
});
