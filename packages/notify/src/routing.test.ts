import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { channelsFor, routeSchema, type Route } from "./routing.js";
import { firingNotice, serverA } from "./test-support/notices.js";

const pager = "11111111-1111-4111-8111-111111111111";
const chat = "22222222-2222-4222-8222-222222222222";
const mail = "33333333-3333-4333-8333-333333333333";

const route = (overrides: Partial<Route>): Route => ({
  channelId: chat,
  severities: ["info", "warning", "critical"],
  scope: "organization",
  tag: null,
  serverId: null,
  notifyResolved: true,
  ...overrides,
});

describe("routing", () => {
  it("sends by severity: critical pages, everything goes to chat", () => {
    const routes = [route({ channelId: pager, severities: ["critical"] }), route({ channelId: chat })];
    assert.deepEqual(channelsFor(routes, firingNotice({ severity: "critical" })), [pager, chat]);
    assert.deepEqual(channelsFor(routes, firingNotice({ severity: "warning" })), [chat]);
  });

  it("matches tag and server scopes against the subject only", () => {
    const routes = [
      route({ channelId: pager, scope: "tag", tag: "prod" }),
      route({ channelId: mail, scope: "server", serverId: serverA }),
      route({ channelId: chat, scope: "tag", tag: "staging" }),
    ];
    assert.deepEqual(channelsFor(routes, firingNotice()), [pager, mail]);
    const other = firingNotice({
      subject: { serverId: "44444444-4444-4444-8444-444444444444", serverName: "web-1", device: null, tags: ["staging"] },
    });
    assert.deepEqual(channelsFor(routes, other), [chat]);
    const fleetWide = firingNotice({ subject: { serverId: null, serverName: null, device: null, tags: [] } });
    assert.deepEqual(channelsFor(routes, fleetWide), []);
  });

  it("names a channel once however many of its routes match", () => {
    const routes = [
      route({ channelId: chat, scope: "tag", tag: "db" }),
      route({ channelId: chat }),
      route({ channelId: chat, scope: "server", serverId: serverA }),
    ];
    assert.deepEqual(channelsFor(routes, firingNotice()), [chat]);
  });

  it("leaves resolves out of routes that asked not to get them, unless another route wants them", () => {
    const resolved = firingNotice({ state: { from: "firing", to: "ok" } });
    assert.deepEqual(channelsFor([route({ channelId: mail, notifyResolved: false })], resolved), []);
    assert.deepEqual(
      channelsFor([route({ channelId: mail, notifyResolved: false }), route({ channelId: mail, scope: "tag", tag: "db" })], resolved),
      [mail],
    );
    assert.deepEqual(channelsFor([route({ channelId: mail, notifyResolved: false })], firingNotice()), [mail]);
  });

  it("refuses routes whose scope and target disagree", () => {
    assert.equal(routeSchema.safeParse(route({ scope: "tag", tag: null })).success, false);
    assert.equal(routeSchema.safeParse(route({ scope: "organization", serverId: serverA })).success, false);
    assert.equal(routeSchema.safeParse(route({ severities: [] })).success, false);
    assert.equal(routeSchema.safeParse(route({ scope: "tag", tag: "Prod!" })).success, false);
    assert.equal(routeSchema.safeParse(route({ scope: "server", serverId: serverA })).success, true);
  });
});
