// Reads the agent's spool as the gateway would read a batch: the one-line header, the gzip body,
// and the OTLP ExportMetricsServiceRequest inside it. Used to see what the agent sends for
// metrics the gateway accepts but does not store yet. A minimal protobuf reader, enough for
// number data points (gauges and sums), so the tests need no generated OTLP code.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

export interface SpooledPoint {
  value: number;
  attributes: Record<string, string>;
}

/** One spooled batch: its sequence number and metric name → data points. */
export interface SpooledBatch {
  seq: number;
  metrics: Map<string, SpooledPoint[]>;
}

/** Every batch waiting in `spoolDir`, oldest first. A batch deleted meanwhile is skipped. */
export function readSpool(spoolDir: string): SpooledBatch[] {
  const batches: SpooledBatch[] = [];
  for (const name of readdirSync(spoolDir)
    .filter((n) => /^\d{20}\.batch$/.test(n))
    .sort()) {
    let file: Buffer;
    try {
      file = readFileSync(join(spoolDir, name));
    } catch {
      continue; // delivered and deleted between the listing and the read
    }
    const newline = file.indexOf(0x0a);
    const header = file.subarray(0, newline).toString("utf8");
    if (!header.startsWith("spindle-batch/1 ")) throw new Error(`${name}: unexpected spool header ${header}`);
    const body = file.subarray(newline + 1);
    const raw = header.includes("content-encoding=gzip") ? gunzipSync(body) : body;
    batches.push({ seq: Number(name.slice(0, 20)), metrics: decodeRequest(raw) });
  }
  return batches;
}

/** The value of the first point of `metric` in a batch, if it is there. */
export function pointValue(batch: SpooledBatch, metric: string): number | undefined {
  return batch.metrics.get(metric)?.[0]?.value;
}

type Field = { no: number; wire: number; int: bigint; bytes: Uint8Array };

function* fields(buf: Uint8Array): Generator<Field> {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const field: Field = { no: key >>> 3, wire: key & 7, int: 0n, bytes: new Uint8Array() };
    switch (field.wire) {
      case 0:
        field.int = varint();
        break;
      case 1:
        field.int = view.getBigInt64(at, true);
        field.bytes = buf.subarray(at, at + 8);
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        field.bytes = buf.subarray(at, at + length);
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new Error(`protobuf wire type ${field.wire} is not used by OTLP metrics`);
    }
    yield field;
  }
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

// ExportMetricsServiceRequest.resource_metrics(1) → ResourceMetrics.scope_metrics(2) →
// ScopeMetrics.metrics(2) → Metric{name(1), gauge(5) | sum(7)} → data_points(1).
function decodeRequest(raw: Uint8Array): Map<string, SpooledPoint[]> {
  const metrics = new Map<string, SpooledPoint[]>();
  for (const rm of fields(raw)) {
    if (rm.no !== 1) continue;
    for (const sm of fields(rm.bytes)) {
      if (sm.no !== 2) continue;
      for (const m of fields(sm.bytes)) {
        if (m.no !== 2) continue;
        let name = "";
        const points: SpooledPoint[] = [];
        for (const f of fields(m.bytes)) {
          if (f.no === 1) name = text(f.bytes);
          if (f.no === 5 || f.no === 7) {
            for (const dp of fields(f.bytes)) if (dp.no === 1) points.push(decodePoint(dp.bytes));
          }
        }
        metrics.set(name, [...(metrics.get(name) ?? []), ...points]);
      }
    }
  }
  return metrics;
}

// NumberDataPoint: as_double(4), as_int(6), attributes(7) = KeyValue{key(1), value(2) = AnyValue}.
function decodePoint(bytes: Uint8Array): SpooledPoint {
  const point: SpooledPoint = { value: 0, attributes: {} };
  for (const f of fields(bytes)) {
    if (f.no === 6) point.value = Number(f.int);
    if (f.no === 4) point.value = new DataView(f.bytes.buffer, f.bytes.byteOffset, 8).getFloat64(0, true);
    if (f.no === 7) {
      let key = "";
      let value = "";
      for (const kv of fields(f.bytes)) {
        if (kv.no === 1) key = text(kv.bytes);
        if (kv.no === 2) {
          for (const any of fields(kv.bytes)) {
            if (any.no === 1) value = text(any.bytes);
            else if (any.no === 3) value = String(any.int);
          }
        }
      }
      point.attributes[key] = value;
    }
  }
  return point;
}
