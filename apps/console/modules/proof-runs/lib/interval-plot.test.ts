import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { intervalPlot, plotLayout, tickStep } from "./interval-plot";
import { notMeasured } from "./report-view";

const d = (status: "measured" | "no-measurable-difference", percent: number, low: number, high: number) => ({
  status,
  percent,
  lowPercent: low,
  highPercent: high,
  pairs: 4,
  reason: "",
});

describe("interval plot", () => {
  it("puts 0 in the middle and every interval inside the axis", () => {
    const plot = intervalPlot([
      { key: "1", label: "step 1", difference: d("measured", 50, 20, 80) },
      { key: "2", label: "step 2", difference: d("no-measurable-difference", 2, -5, 9) },
      { key: "3", label: "step 3", difference: notMeasured("the run did not finish") },
    ]);
    assert.equal(plot.zeroX, (plot.left + plot.right) / 2);
    const [one, two, three] = plot.rows;
    assert.ok(one!.x1! > plot.zeroX && one!.x2! > one!.x1! && one!.x2! <= plot.right, "a positive interval right of 0");
    assert.ok(two!.x1! < plot.zeroX && two!.x2! > plot.zeroX, "an interval across 0 crosses the line");
    assert.ok(one!.xEstimate! > one!.x1! && one!.xEstimate! < one!.x2!);
    assert.equal(three!.x1, null, "nothing drawn without an interval");
    assert.equal(plot.height, plotLayout.top + 3 * plotLayout.rowHeight + plotLayout.axisHeight);
    // 80 % is the widest end: ticks of 20 up to ±100
    assert.deepEqual(
      plot.ticks.map((t) => t.value),
      [-100, -80, -60, -40, -20, 0, 20, 40, 60, 80, 100],
    );
  });

  it("keeps at least ±5 % so a tiny interval is not blown up to the whole width", () => {
    const plot = intervalPlot([{ key: "1", label: "step 1", difference: d("measured", 0.4, 0.1, 0.7) }]);
    assert.ok(plot.ticks.at(-1)!.value >= 5);
    assert.ok(plot.rows[0]!.x2! - plot.rows[0]!.x1! < (plot.right - plot.left) / 10);
  });

  it("clips a far end beyond the axis and says so", () => {
    const plot = intervalPlot([
      { key: "1", label: "step 1", difference: d("no-measurable-difference", 130, -96, 16701) },
      { key: "2", label: "step 2", difference: d("measured", 20, 10, 30) },
    ]);
    const [wide, narrow] = plot.rows;
    assert.ok(plot.ticks.at(-1)!.value >= 143 && plot.ticks.at(-1)!.value <= 200, "the estimate, +130 %, stays on the axis");
    assert.ok(wide!.xEstimate! < plot.right);
    assert.equal(wide!.x2, plot.right);
    assert.equal(wide!.clippedHigh, true);
    assert.equal(wide!.clippedLow, false);
    assert.ok(wide!.x1! > plot.left && wide!.x1! < plot.zeroX, "−96 % stays on the axis");
    assert.ok(narrow!.x2! - narrow!.x1! > 10, "the narrow interval is still drawn wide enough to see");
  });

  it("keeps an interval wholly beyond ±100 % on the axis, its far end clipped", () => {
    const plot = intervalPlot([
      { key: "1", label: "step 1", difference: d("measured", 512.8, 173.1, 1274.9) },
      { key: "2", label: "step 2", difference: d("no-measurable-difference", 2, -5, 9) },
    ]);
    const [far, near] = plot.rows;
    assert.ok(far!.x1! > plot.zeroX && far!.x1! < far!.xEstimate! && far!.xEstimate! < far!.x2!, "low end and estimate drawn");
    assert.equal(far!.clippedHigh, true);
    assert.ok(near!.x1! < plot.zeroX && near!.x2! > plot.zeroX);
  });

  it("picks ticks of 1, 2 or 5 times a power of ten", () => {
    assert.equal(tickStep(5), 2);
    assert.equal(tickStep(84), 50);
    assert.equal(tickStep(0.3), 0.1);
  });
});
