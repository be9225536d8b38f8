import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { curveLabel, hitRatioAt } from "./hit-ratio-at";

describe("hitRatioAt", () => {
  const curve = { sizesBytes: [409_600, 819_200, 1_638_400], hitRatios: [0.1, 0.4, 0.9] };
  it("reads the step at or below the size, the last value past the end, and nothing below the first size", () => {
    assert.equal(hitRatioAt(curve, 409_599), null);
    assert.equal(hitRatioAt(curve, 409_600), 0.1);
    assert.equal(hitRatioAt(curve, 1_000_000), 0.4);
    assert.equal(hitRatioAt(curve, 2 ** 40), 0.9);
  });
  it("names each kind of curve", () => {
    assert.equal(curveLabel({ curve: "block", scope: "nvme0n1" }), "Disk nvme0n1 (flash-tier what-if)");
    assert.equal(curveLabel({ curve: "read_cache", scope: "/srv/pg/**" }), "Read-cache scope /srv/pg/**");
  });
});
