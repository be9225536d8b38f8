import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { proofRunReport } from "../types/proof-run";
import { reportCsv, reportPassesCsv } from "./report-csv";
import { reportFixture } from "./report-fixture";
import { differenceText, fragmentsPrevented, overallChange, saturationPoints, statedCausedReads, stepRows } from "./report-view";

describe("proof-run report figures", () => {
  it("puts without and with side by side per step, with the change and its interval", () => {
    const [first, second] = stepRows(reportFixture());
    assert.equal(first?.throughputWithout, 200);
    assert.equal(first?.throughputWith, 300);
    assert.equal(differenceText(first!.throughputChange), "+50 % (+20 to +80 %)");
    assert.equal(differenceText(first!.latencyChange), "−50 % (−60 to −40 %)");
    assert.equal(first?.p99MsWith, 30);
    // An interval across 0 is not a finding, whatever the estimate.
    assert.equal(differenceText(second!.throughputChange), "no measurable difference (−5 to +9 %)");
    // A few passes on a busy machine can give an upper end in the thousands: grouped, not lost.
    assert.equal(differenceText({ ...second!.throughputChange, highPercent: 1051239.34 }), "no measurable difference (−5 to +1,051,239 %)");
  });

  it("states no change for an incomplete run, an old report or a missing side", () => {
    const report = reportFixture();
    report.complete = false;
    for (const d of [stepRows(report)[0]!.throughputChange, overallChange(report).throughput, fragmentsPrevented(report)]) {
      assert.equal(differenceText(d), "not measured");
      assert.match(d.reason, /did not finish/);
    }
    assert.equal(statedCausedReads(report).storageReadsSaved, null);
    const old = reportFixture();
    old.steps[0]!.change = null;
    old.overall = null;
    old.writePath!.fragmentsPrevented = null;
    assert.match(stepRows(old)[0]!.throughputChange.reason, /formed no interval/);
    assert.match(overallChange(old).latencyMean.reason, /formed no interval/);
    assert.match(fragmentsPrevented(old).reason, /too few files to tell/);
    const oneSided = reportFixture();
    oneSided.steps[1]!.on = null;
    assert.equal(stepRows(oneSided)[1]!.throughputWith, null, "never drawn as 0");
  });

  it("finds the saturation point where mean response time crosses the user's limit", () => {
    const rows = stepRows(reportFixture());
    const points = saturationPoints(rows, 50);
    const without = points.find((p) => p.side === "without");
    const withFeatures = points.find((p) => p.side === "with");
    assert.deepEqual(without?.step, { index: 2, label: "file server, 2 x 4", latencyMs: 80 });
    assert.deepEqual(without?.lastBelow, { index: 1, label: "file server, 1 x 1", throughput: 200 });
    assert.deepEqual(withFeatures?.step, { index: 2, label: "file server, 2 x 4", latencyMs: 78 });
    // A limit below every step: crossed at once, nothing sustained.
    assert.equal(saturationPoints(rows, 5).find((p) => p.side === "without")?.lastBelow, null);
  });

  it("uses TPS for pgbench", () => {
    const report = reportFixture();
    report.throughput = "tps";
    report.steps[0]!.off!.tps = 40;
    report.steps[0]!.on!.tps = 62;
    assert.equal(stepRows(report)[0]?.throughputWith, 62);
  });

  it("exports CSV with the change's wording, its figure only when measured, and its interval", () => {
    const lines = reportCsv(reportFixture()).trimEnd().split("\r\n");
    assert.equal(lines.length, 4);
    assert.match(
      lines[0] ?? "",
      /^step,workload,load,throughput_unit,throughput_without,throughput_with,throughput_change,throughput_change_percent,throughput_change_low_percent/,
    );
    assert.equal(lines[1], "1,file server,1 x 1,IOPS,200,300,measured,50,20,80,20,10,measured,-50,-60,-40,40,20,60,30,13.1,19.65,4");
    assert.equal(
      lines[2],
      "2,file server,2 x 4,IOPS,400,410,no measurable difference,,-5,9,80,78,no measurable difference,,-9,4,160,156,240,234,26.2,26.855,4",
    );
    assert.equal(lines[3], "overall,all steps (geometric mean),,IOPS,,,measured,24,8,41,,,no measurable difference,,-45,1,,,,,,,4");
    const stopped = reportFixture();
    stopped.complete = false;
    assert.match(
      reportCsv(stopped).split("\r\n")[1] ?? "",
      /,not measured: the run did not finish: a change is stated only from a finished run,,,,/,
    );
  });

  it("exports every pass of every step, the warm-up marked", () => {
    const lines = reportPassesCsv(reportFixture()).trimEnd().split("\r\n");
    assert.equal(lines.length, 1 + 2 * 9);
    assert.equal(
      lines[0],
      "step,workload,load,pass,side,warm_up,throughput_unit,throughput,mbps,latency_mean_ms,latency_p95_ms,latency_p99_ms,operations",
    );
    assert.equal(lines[1], "1,file server,1 x 1,1,off,yes,IOPS,100,6.55,10,20,30,500");
    assert.equal(lines[3], "1,file server,1 x 1,3,on,no,IOPS,300,19.65,3.33333,6.66667,10,1500");
  });

  it("quotes and neutralises spreadsheet formulas in labels", () => {
    const report = reportFixture();
    report.steps[0]!.workload = "=cmd";
    report.steps[0]!.label = 'x, "y"';
    const line = reportCsv(report).split("\r\n")[1] ?? "";
    assert.ok(line.startsWith(`1,'=cmd,"x, ""y""",`), line);
  });

  // Issue 25, L3: a leading TAB or CR also makes a spreadsheet run the cell.
  it("neutralises a label starting with a TAB or a carriage return, as every export does", () => {
    const report = reportFixture();
    report.steps[0]!.workload = "\t=cmd";
    report.steps[0]!.label = "\r=cmd";
    const line = reportCsv(report).split("\r\n")[1] ?? "";
    assert.ok(line.startsWith(`1,'\t=cmd,"'\r=cmd",`), JSON.stringify(line));
  });

  it("accepts the agent's report shape, an older one without intervals, and rejects another", () => {
    assert.equal(proofRunReport.safeParse(JSON.parse(JSON.stringify(reportFixture()))).success, true);
    const old = JSON.parse(JSON.stringify(reportFixture()));
    for (const step of old.steps) {
      delete step.change;
      delete step.passes;
    }
    delete old.overall;
    delete old.alternation;
    delete old.reads.caused;
    old.writePath = { extentsOff: [3, 3], extentsOn: [6, 3], fragmentsPreventedPercent: -50, basis: "extents" };
    const parsed = proofRunReport.safeParse(old);
    assert.equal(parsed.success, true);
    assert.equal(differenceText(fragmentsPrevented(parsed.data!)), "not measured", "never −50 % from 3 against 6 extents");
    assert.equal(proofRunReport.safeParse({ steps: [] }).success, false);
  });
});
