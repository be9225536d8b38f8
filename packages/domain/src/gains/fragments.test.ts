import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fragmentsPrevented } from "./fragments.js";

const gib = 1024 ** 3;

describe("fragmentsPrevented", () => {
  it("expects the managed files to fragment at the comparison group's rate per GiB grown", () => {
    // Unmanaged: 50 extents over 1 GiB. Managed: 2 GiB grown, so 100 expected; 10 happened.
    const result = fragmentsPrevented({
      managedGrownBytes: 2 * gib,
      managedExtentsAdded: 10,
      unmanagedGrownBytes: gib,
      unmanagedExtentsAdded: 50,
      samples: 60,
    });
    assert.equal(result.status, "measured");
    assert.deepEqual(result.value, {
      prevented: 90,
      expectedExtents: 100,
      actualExtents: 10,
      managedExtentsPerGib: 5,
      unmanagedExtentsPerGib: 50,
    });
    assert.deepEqual(
      result.basis.map((input) => input.samples),
      [2048, 1024],
    );
  });

  it("shows a negative effect as it is", () => {
    const result = fragmentsPrevented({
      managedGrownBytes: gib,
      managedExtentsAdded: 30,
      unmanagedGrownBytes: gib,
      unmanagedExtentsAdded: 20,
      samples: 6,
    });
    assert.equal(result.status === "measured" && result.value.prevented, -10);
  });

  it("is not measured without a comparison group or without growth", () => {
    const noGroup = fragmentsPrevented({
      managedGrownBytes: gib,
      managedExtentsAdded: 3,
      unmanagedGrownBytes: null,
      unmanagedExtentsAdded: null,
      samples: 6,
    });
    assert.equal(noGroup.status, "not-measured");
    assert.match(noGroup.reason, /comparison group/);
    const noGrowth = fragmentsPrevented({
      managedGrownBytes: gib,
      managedExtentsAdded: 3,
      unmanagedGrownBytes: 0,
      unmanagedExtentsAdded: 0,
      samples: 6,
    });
    assert.equal(noGrowth.status, "not-measured");
    assert.match(noGrowth.reason, /no rate to compare/);
    const nothingManaged = fragmentsPrevented({
      managedGrownBytes: null,
      managedExtentsAdded: null,
      unmanagedGrownBytes: gib,
      unmanagedExtentsAdded: 4,
      samples: 6,
    });
    assert.equal(nothingManaged.status, "not-measured");
  });
});
