import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact } from "./columnar";

describe("compact", () => {
  it("rounds to four significant digits exactly as Number(toPrecision(4)) does", () => {
    const edges = [
      0,
      -0,
      1,
      9.9995,
      9.99949,
      0.4055,
      0.40555,
      10.09,
      36.666,
      1000,
      999.95,
      999.94,
      123456789,
      1e-7,
      4.0955e-5,
      0.1 + 0.2,
      1.0005,
      2.5e21,
      5e-324,
      -36.666,
      -0.00012345,
      65535.5,
      99999.5,
      1e-19,
      9.9996e-20,
      1e22,
      1e23,
      9.99951e25,
      1e26,
      Number.MAX_VALUE,
      -Number.MIN_VALUE,
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const values = [...edges];
    for (let i = 0; i < 20_000; i++) values.push((random() - 0.1) * 10 ** Math.floor(random() * 24 - 12));
    // Far out, where a power of ten is no longer an exact double, and across the whole double range.
    for (let i = 0; i < 20_000; i++) values.push((random() - 0.1) * 10 ** Math.floor(random() * 80 - 40));
    for (let i = 0; i < 5_000; i++) values.push((random() - 0.1) * 10 ** Math.floor(random() * 616 - 308));
    for (const value of values) assert.equal(compact(value), Number(value.toPrecision(4)), String(value));
  });

  it("keeps what was not measured as null", () => {
    assert.equal(compact(null), null);
    assert.equal(compact(Number.NaN), null);
    assert.equal(compact(Number.POSITIVE_INFINITY), null);
  });
});
