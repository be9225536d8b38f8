// How the runner reads migration folders: naming, the single-file or per-mode layout, and
// `-- spindle:include`. No database needed.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { listMigrations, loadScript } from "../src/migrate/files.js";
import { defaultMigrationsDir } from "../src/index.js";

describe("migration folders", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "spindle-migration-files-"));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function folder(dir: string, name: string, files: Record<string, string>): Promise<void> {
    await mkdir(join(root, dir, name), { recursive: true });
    for (const [file, text] of Object.entries(files)) await writeFile(join(root, dir, name, file), text);
  }

  it("lists folders in name order and tells single-file from per-mode migrations", async () => {
    await folder("ok", "20260102000000_second", { "timescale.sql": "SELECT 1;\n", "plain.sql": "SELECT 2;\n" });
    await folder("ok", "20260101000000_first", { "migration.sql": "SELECT 0;\n" });
    const folders = await listMigrations(join(root, "ok"));
    assert.deepEqual(
      folders.map((f) => [f.name, f.dependsOnTimeseriesMode]),
      [
        ["20260101000000_first", false],
        ["20260102000000_second", true],
      ],
    );
  });

  it("inlines included sibling files, and the checksum covers them", async () => {
    await folder("include", "20260101000000_metrics", {
      "plain.sql": "-- header\n-- spindle:include shared.sql\nCREATE INDEX x ON t (a);\n",
      "timescale.sql": "-- spindle:include shared.sql\n",
      "shared.sql": "CREATE TABLE t (a int);",
    });
    const [metrics] = await listMigrations(join(root, "include"));
    const script = await loadScript(metrics!, "plain");
    assert.equal(script.sql, "-- header\n-- begin shared.sql\nCREATE TABLE t (a int);\n-- end shared.sql\nCREATE INDEX x ON t (a);\n");
    assert.equal(script.checksum, createHash("sha256").update(script.sql).digest("hex"));
  });

  it("rejects badly named folders, half-pairs, nested and escaping includes", async () => {
    await folder("badname", "2026_first", { "migration.sql": "" });
    await assert.rejects(listMigrations(join(root, "badname")), /must be named <yyyymmddhhmmss>_<snake_case_name>/);

    await folder("halfpair", "20260101000000_half", { "timescale.sql": "" });
    await assert.rejects(listMigrations(join(root, "halfpair")), /either migration\.sql, or both timescale\.sql and plain\.sql/);

    await folder("nested", "20260101000000_nested", {
      "migration.sql": "-- spindle:include a.sql\n",
      "a.sql": "-- spindle:include b.sql\n",
    });
    const [nested] = await listMigrations(join(root, "nested"));
    await assert.rejects(loadScript(nested!, "migration"), /a\.sql is included and must not include other files/);

    await folder("escape", "20260101000000_escape", { "migration.sql": "-- spindle:include ../secret.sql\n" });
    const [escaping] = await listMigrations(join(root, "escape"));
    await assert.rejects(loadScript(escaping!, "migration"), /must name a \.sql file in the same folder/);
  });

  it("reads the repository's own migrations", async () => {
    const folders = await listMigrations(defaultMigrationsDir);
    const telemetry = folders.find((f) => f.name === "20261121080100_telemetry");
    assert.equal(telemetry?.dependsOnTimeseriesMode, true);
    for (const variant of ["plain", "timescale"] as const) {
      assert.match((await loadScript(telemetry!, variant)).sql, /CREATE TABLE disk_io/);
    }
  });
});
