import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareAgentVersions, isAgentVersion, newestAgentVersion, parseAgentVersion } from "./version.js";

describe("agent versions", () => {
  it("parses releases and pre-releases, and refuses anything else", () => {
    assert.deepEqual(parseAgentVersion("0.1.2"), { major: 0, minor: 1, patch: 2, prerelease: [] });
    assert.deepEqual(parseAgentVersion("1.0.0-rc.1"), { major: 1, minor: 0, patch: 0, prerelease: ["rc", "1"] });
    for (const bad of ["", "1.2", "v1.2.3", "1.2.3.4", "1.2.3-", "1.2.3-a..b", "1.2.3 ", "../1.2.3"]) {
      assert.equal(isAgentVersion(bad), false, bad);
    }
  });

  it("orders by semantic-version precedence", () => {
    const sorted = ["0.1.10", "0.1.2", "0.1.0-dev", "0.1.0", "1.0.0-rc.10", "1.0.0-rc.2", "1.0.0-alpha", "1.0.0"].sort(
      compareAgentVersions,
    );
    assert.deepEqual(sorted, ["0.1.0-dev", "0.1.0", "0.1.2", "0.1.10", "1.0.0-alpha", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0"]);
    assert.equal(compareAgentVersions("0.1.1", "0.1.1"), 0);
    assert.ok(compareAgentVersions("", "0.0.1") < 0, "an agent without a version is older than any release");
  });

  it("finds the newest of a list, ignoring what is not a version", () => {
    assert.equal(newestAgentVersion(["0.1.1", "junk", "0.1.2", "0.1.2-rc.1"]), "0.1.2");
    assert.equal(newestAgentVersion([]), null);
  });
});
