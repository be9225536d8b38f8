// What the page says before the install command is copied, and when the commands carry
// --allow-http: install.sh and the Windows agent accept plain http on their own only for a
// gateway on the same host.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeGatewayAddress, installNotes, needsAllowHttp } from "./gateway-address";

describe("describeGatewayAddress", () => {
  it("tells loopback literals from names and other addresses", () => {
    for (const url of [
      "http://127.0.0.1:4318",
      "http://127.9.8.7",
      "http://localhost:4318/",
      "http://[::1]:4318",
      "https://app.localhost",
    ]) {
      assert.equal(describeGatewayAddress(url).loopbackOnly, true, url);
    }
    // A name may resolve to loopback on the gateway's machine and to a LAN address elsewhere.
    for (const url of [
      "http://vm:4318",
      "http://10.0.0.7:4318",
      "https://gw.example.com",
      "http://[fe80::1]:4318",
      "http://127.example.com",
    ]) {
      assert.equal(describeGatewayAddress(url).loopbackOnly, false, url);
    }
  });

  it("drops trailing slashes and reads the scheme", () => {
    assert.deepEqual(describeGatewayAddress("http://vm:4318//"), {
      url: "http://vm:4318",
      host: "vm",
      plainHttp: true,
      loopbackOnly: false,
    });
    assert.equal(describeGatewayAddress("https://gw.example.com").plainHttp, false);
  });
});

describe("needsAllowHttp and installNotes", () => {
  it("https: no flag and nothing to say", () => {
    const gateway = describeGatewayAddress("https://gw.example.com:4318");
    assert.equal(needsAllowHttp(gateway), false);
    assert.deepEqual(installNotes(gateway, "linux"), []);
    assert.deepEqual(installNotes(gateway, "windows"), []);
  });

  it("plain http to another host: the flag, and a warning that says what crosses the network", () => {
    const gateway = describeGatewayAddress("http://vm:4318");
    assert.equal(needsAllowHttp(gateway), true);
    for (const platform of ["linux", "windows"] as const) {
      const notes = installNotes(gateway, platform);
      assert.deepEqual(
        notes.map((n) => [n.id, n.level]),
        [["plain-http", "warning"]],
      );
      assert.match(notes[0]!.text, /enrolment token .* credential .* telemetry cross the network/);
      assert.match(notes[0]!.text, /--allow-http/);
    }
    assert.match(installNotes(gateway, "linux")[0]!.text, /signed by the gateway's key/);
    assert.doesNotMatch(installNotes(gateway, "windows")[0]!.text, /signed by the gateway's key/);
  });

  it("a loopback gateway: no flag needed, but the command cannot work on another machine, and the page says why", () => {
    const gateway = describeGatewayAddress("http://127.0.0.1:4400");
    assert.equal(needsAllowHttp(gateway), false);
    const [note, ...rest] = installNotes(gateway, "windows");
    assert.equal(rest.length, 0);
    assert.equal(note!.level, "blocker");
    assert.match(note!.title, /only on the gateway's own machine/);
    assert.match(note!.text, /SPINDLE_PUBLIC_GATEWAY_URL/);
  });
});
