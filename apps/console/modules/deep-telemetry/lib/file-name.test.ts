import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findCommand, parseTopFileName } from "./file-name";

describe("parseTopFileName", () => {
  it("keeps a path", () => {
    assert.deepEqual(parseTopFileName("/var/lib/postgresql/16/main/base/5/16384"), {
      kind: "path",
      path: "/var/lib/postgresql/16/main/base/5/16384",
    });
  });

  it("reads the mount point, the full inode and what was tried", () => {
    const name = parseTopFileName(
      "inode 4294967396 on /srv/my data (device 254:1): not open in any process, not memory-mapped by any process, xfs cannot be searched by inode number",
    );
    assert.deepEqual(name, {
      kind: "inode",
      inode: "4294967396",
      mountPoint: "/srv/my data",
      device: "254:1",
      tried: ["not open in any process", "not memory-mapped by any process", "xfs cannot be searched by inode number"],
    });
    assert.equal(findCommand(name as Extract<typeof name, { kind: "inode" }>), "find '/srv/my data' -xdev -inum 4294967396");
  });

  it("says when the file system is not mounted where the agent runs", () => {
    const name = parseTopFileName("inode 12 on a file system not mounted here (device 0:45): not open in any process");
    assert.equal(name.kind === "inode" && name.mountPoint, null);
    assert.equal(findCommand(name as Extract<typeof name, { kind: "inode" }>), null);
  });

  it("reads an older agent's inode:<dev>:<ino>, its device in stat(2)'s encoding", () => {
    assert.deepEqual(parseTopFileName("inode:2049:131077"), {
      kind: "inode",
      inode: "131077",
      mountPoint: null,
      device: "8:1",
      tried: ["not open in any process"],
    });
    assert.deepEqual(parseTopFileName("inode:65024:7").kind === "inode" && parseTopFileName("inode:65024:7"), {
      kind: "inode",
      inode: "7",
      mountPoint: null,
      device: "254:0",
      tried: ["not open in any process"],
    });
  });
});
