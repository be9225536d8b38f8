import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { benchReport } from "../types/bench";
import { reportCsv } from "./report-csv";
import { reportFixture } from "./report-fixture";
import { changePercent, meanChange, saturationPoints, stepRows } from "./report-view";

describe("proof-run report figures", () => {
  it("puts without and with side by side per step, with the change", () => {
    const [first, second] = stepRows(reportFixture());
    assert.equal(first?.throughputWithout, 200);
    assert.equal(first?.throughputWith, 300);
    assert.equal(first?.throughputChangePercent, 50); // (300 - 200) / 200
    assert.equal(first?.latencyMsWithout, 20);
    assert.equal(first?.latencyMsWith, 10);
    assert.equal(first?.latencyChangePercent, -50);
    assert.equal(first?.p99MsWith, 30);
    // A side that was not measured stays null: never drawn as 0, never averaged in.
    assert.equal(second?.throughputWith, null);
    assert.equal(second?.throughputChangePercent, null);
    assert.equal(meanChange([first?.throughputChangePercent ?? null, second?.throughputChangePercent ?? null]), 50);
  });

  it("finds the saturation point where mean response time crosses the user's limit", () => {
    const rows = stepRows(reportFixture());
    const points = saturationPoints(rows, 50);
    const without = points.find((p) => p.side === "without");
    const withFeatures = points.find((p) => p.side === "with");
    assert.deepEqual(without?.step, { index: 2, label: "file server, 2 x 4", latencyMs: 80 });
    assert.deepEqual(without?.lastBelow, { index: 1, label: "file server, 1 x 1", throughput: 200 });
    assert.equal(withFeatures?.step, null, "with the features step 1 stays under 50 ms and step 2 was not measured");
    // A limit below every step: crossed at once, nothing sustained.
    assert.equal(saturationPoints(rows, 5).find((p) => p.side === "without")?.lastBelow, null);
  });

  it("uses TPS for pgbench and refuses a change against zero", () => {
    const report = reportFixture();
    report.throughput = "tps";
    report.steps[0]!.off!.tps = 40;
    report.steps[0]!.on!.tps = 62;
    assert.ok(Math.abs((stepRows(report)[0]?.throughputChangePercent ?? 0) - 55) < 1e-9); // (62 - 40) / 40
    assert.equal(changePercent(0, 10), null);
  });

  it("exports CSV with empty cells for what was not measured", () => {
    const lines = reportCsv(reportFixture()).trimEnd().split("\r\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? "", /^step,workload,load,throughput_unit,throughput_without,throughput_with,throughput_change_percent/);
    assert.equal(lines[1], "1,file server,1 x 1,IOPS,200,300,50,20,10,-50,40,20,60,30,13.1,19.65");
    assert.equal(lines[2], "2,file server,2 x 4,IOPS,400,,,80,,,160,,240,,26.2,");
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

  it("accepts the agent's report shape and rejects another", () => {
    assert.equal(benchReport.safeParse(JSON.parse(JSON.stringify(reportFixture()))).success, true);
    assert.equal(benchReport.safeParse({ steps: [] }).success, false);
  });
});
