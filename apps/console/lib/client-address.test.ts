// The one place the console decides a request's client address (issue 25, M3): the TCP peer,
// and X-Forwarded-For only through SPINDLE_TRUSTED_PROXIES; server.ts rewrites every request's
// forwarding headers with rewriteForwardingHeaders before Next.js sees it.
import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { describe, it } from "node:test";
import {
  clientAddressHeader,
  clientAddressOf,
  normaliseAddress,
  resolveClientAddress,
  rewriteForwardingHeaders,
  trustedProxies,
} from "./client-address";

const none = trustedProxies([]);
const proxies = trustedProxies(["10.0.0.0/8", "fd00::/8", "192.0.2.1"]);

describe("resolveClientAddress", () => {
  const cases: [string, string | undefined, string | string[] | undefined, ReturnType<typeof trustedProxies>, string | null][] = [
    ["no proxy configured: the header is ignored", "203.0.113.9", "198.51.100.1", none, "203.0.113.9"],
    ["the peer is no proxy: ignored", "203.0.113.9", "198.51.100.1", proxies, "203.0.113.9"],
    ["a proxy says who the client is", "10.1.2.3", "198.51.100.1", proxies, "198.51.100.1"],
    ["the rightmost hop that is no proxy", "10.1.2.3", "6.6.6.6, 198.51.100.1, 10.9.9.9", proxies, "198.51.100.1"],
    ["what a client wrote before the proxy is never taken", "10.1.2.3", "1.1.1.1, 203.0.113.7", proxies, "203.0.113.7"],
    ["several header lines are one list", "10.1.2.3", ["6.6.6.6", "198.51.100.1, 10.9.9.9"], proxies, "198.51.100.1"],
    ["a malformed hop stops the walk at the last vouched address", "10.1.2.3", "198.51.100.1, garbage", proxies, "10.1.2.3"],
    ["every hop a proxy: the leftmost proxy", "10.1.2.3", "10.2.2.2, 192.0.2.1", proxies, "10.2.2.2"],
    ["IPv4-mapped peers are IPv4", "::ffff:10.1.2.3", "198.51.100.1", proxies, "198.51.100.1"],
    ["IPv6 proxies and clients", "fd00::1", "2001:db8::7", proxies, "2001:db8::7"],
    ["no peer", undefined, "198.51.100.1", proxies, null],
  ];
  for (const [what, peer, forwarded, trusted, want] of cases) {
    it(what, () => assert.equal(resolveClientAddress(peer, forwarded, trusted), want));
  }
});

describe("trustedProxies", () => {
  it("refuses an entry that is no address or prefix, naming it", () => {
    for (const bad of ["10.0.0.0/33", "fd00::/129", "proxy.internal", "10.0.0.1/8/9", "10.0.0.0/x"]) {
      assert.throws(
        () => trustedProxies([bad]),
        new RegExp(`"${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}" is not an IP address or CIDR prefix`),
      );
    }
  });
  it("matches bracketed, zoned and mapped forms", () => {
    assert.equal(normaliseAddress("[fd00::1]"), "fd00::1");
    assert.equal(normaliseAddress("fe80::1%eth0"), "fe80::1");
    assert.ok(proxies.contains("::ffff:192.0.2.1"));
  });
});

describe("rewriteForwardingHeaders", () => {
  it("replaces what a client forged with the peer, when no proxy is trusted", () => {
    const headers: IncomingHttpHeaders = {
      "x-forwarded-for": "1.2.3.4",
      [clientAddressHeader]: "5.6.7.8",
      "x-forwarded-host": "evil.example",
      "x-forwarded-proto": "https",
    };
    rewriteForwardingHeaders(headers, "203.0.113.9", none);
    assert.deepEqual(headers, { "x-forwarded-for": "203.0.113.9", [clientAddressHeader]: "203.0.113.9" });
    assert.equal(clientAddressOf(new Headers(headers as Record<string, string>)), "203.0.113.9");
  });
  it("keeps a trusted proxy's view of the client, host and scheme", () => {
    const headers: IncomingHttpHeaders = {
      "x-forwarded-for": "1.2.3.4, 198.51.100.1",
      "x-forwarded-host": "spindle.example.com",
      "x-forwarded-proto": "https",
    };
    rewriteForwardingHeaders(headers, "10.0.0.5", proxies);
    assert.deepEqual(headers, {
      "x-forwarded-for": "198.51.100.1",
      [clientAddressHeader]: "198.51.100.1",
      "x-forwarded-host": "spindle.example.com",
      "x-forwarded-proto": "https",
    });
  });
});
