import assert from "node:assert/strict";
import { test } from "node:test";
import { formatRaw, parseRaw } from "./raw-format";

const layer = { telemetry: { intervalSeconds: 5 }, schemaVersion: 1, readCache: { enabled: true, include: ["/var/lib/postgresql/**"] } };

test("JSON and YAML round-trip to the same document, keys in the schema's order", () => {
  for (const format of ["json", "yaml"] as const) {
    const text = formatRaw(layer, format);
    assert.deepEqual(parseRaw(text, format), { ok: true, value: layer });
    assert.ok(text.indexOf("schemaVersion") < text.indexOf("readCache"), `${format}: schemaVersion first`);
  }
  assert.equal(formatRaw({ schemaVersion: 1, telemetry: { ebpf: "on" } }, "yaml"), "schemaVersion: 1\ntelemetry:\n  ebpf: on\n");
});

test("a YAML value that looks like another type stays what the schema will judge", () => {
  // "on" is a string in YAML 1.2's core schema, not a boolean: the policy's ebpf mode survives.
  assert.deepEqual(parseRaw("schemaVersion: 1\ntelemetry:\n  ebpf: on\n", "yaml"), {
    ok: true,
    value: { schemaVersion: 1, telemetry: { ebpf: "on" } },
  });
});

test("syntax errors and duplicate keys are problems on the whole document", () => {
  const json = parseRaw("{ schemaVersion: 1", "json");
  assert.equal(json.ok, false);
  assert.equal(!json.ok && json.problem.code, "invalid_json");
  const duplicate = parseRaw("schemaVersion: 1\nschemaVersion: 1\n", "yaml");
  assert.equal(!duplicate.ok && duplicate.problem.code, "invalid_yaml");
  assert.match(!duplicate.ok ? duplicate.problem.message : "", /^is not valid YAML: /);
});
