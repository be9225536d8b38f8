import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { boundSaving, deviceSpareReads } from "./caused-bound.js";
import { describeMeasured } from "./measured.js";

describe("deviceSpareReads", () => {
  it("is what each device could have served busy all the time it was observed, beyond what it did", () => {
    // sda: 1,000 I/Os in 20 busy seconds = 50 per busy second; 80 idle seconds could have served 4,000 more.
    // sdb: 300 I/Os in 3 s = 100 per second over 57 idle seconds: 5,700. loop0 did nothing and adds nothing.
    const spare = deviceSpareReads([
      { device: "sda", observedSeconds: 100, readOps: 900, writeOps: 100, busySeconds: 20 },
      { device: "sdb", observedSeconds: 60, readOps: 300, writeOps: 0, busySeconds: 3 },
      { device: "loop0", observedSeconds: 100, readOps: 0, writeOps: 0, busySeconds: 0 },
    ]);
    assert.equal(spare.status, "measured", describeMeasured(spare));
    if (spare.status !== "measured") return;
    assert.ok(Math.abs(spare.value.spareIos - 9700) < 1e-9);
    assert.equal(spare.value.readOps, 1200);
    assert.deepEqual(spare.value.devices, ["sda", "sdb"]);
  });

  it("is 0 for a device busy the whole time, and not measured when no device did any I/O", () => {
    const full = deviceSpareReads([{ device: "sda", observedSeconds: 10, readOps: 500, writeOps: 0, busySeconds: 10.5 }]);
    assert.equal(full.status === "measured" && full.value.spareIos, 0);
    assert.match(
      describeMeasured(deviceSpareReads([{ device: "sda", observedSeconds: 10, readOps: null, writeOps: null, busySeconds: null }])),
      /no device did any I\/O/,
    );
  });
});

describe("boundSaving", () => {
  const bound = { spareIos: 4000, readOps: 900, devices: ["sda"] };
  it("caps a saving and its interval at what the devices could have served", () => {
    assert.deepEqual(boundSaving({ saved: 5000, low: 3000, high: 6000 }, bound), { saved: 4000, low: 3000, high: 4000, capped: true });
    assert.deepEqual(boundSaving({ saved: 100, low: -50, high: 200 }, bound), { saved: 100, low: -50, high: 200, capped: false });
  });
  it("caps a negative saving at the reads the devices served", () => {
    assert.deepEqual(boundSaving({ saved: -2000, low: -3000, high: -1000 }, bound), { saved: -900, low: -900, high: -900, capped: true });
  });
});
