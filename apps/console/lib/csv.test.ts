// The one CSV writer (issue 25, L3), and that every export in the console uses it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { csvCell, csvDocument } from "./csv";

const consoleRoot = fileURLToPath(new URL("..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".") || name === "dist") return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe("csvCell", () => {
  it("quotes what RFC 4180 requires and leaves the rest", () => {
    assert.equal(csvCell('say "hi", then'), '"say ""hi"", then"');
    assert.equal(csvCell("two\nlines"), '"two\nlines"');
    assert.equal(csvCell("plain"), "plain");
  });

  it("defuses every character a spreadsheet starts a formula with: = + - @ TAB CR LF", () => {
    for (const start of ["=", "+", "-", "@", "\t", "\r", "\n"]) {
      const cell = csvCell(`${start}cmd|' /C calc'!A0`);
      assert.ok(cell.replace(/^"/, "").startsWith(`'${start}`), JSON.stringify(cell));
    }
  });

  it("writes numbers as numbers and what was not measured as an empty cell", () => {
    assert.deepEqual([-5, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, null].map(csvCell), ["-5", "0", "1.5", "", "", ""]);
  });

  it("ends every row with CRLF", () => {
    assert.equal(
      csvDocument([
        ["a", 1],
        ["b", null],
      ]),
      "a,1\r\nb,\r\n",
    );
  });
});

describe("the console's CSV exports", () => {
  it("all write through lib/csv.ts: no other file quotes CSV or picks the formula characters", () => {
    const own = join(consoleRoot, "lib/csv.ts");
    const offenders = sources(consoleRoot)
      .filter((path) => path !== own)
      .filter((path) => /replaceAll\(\s*'"',\s*'""'\s*\)|\[=\+\\-@/.test(readFileSync(path, "utf8")))
      .map((path) => relative(consoleRoot, path));
    assert.deepEqual(offenders, [], "encode CSV cells with csvCell / csvDocument from lib/csv.ts");
  });
});
