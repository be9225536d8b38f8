package store

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// BenchmarkEncodeGroupCopy encodes the disk_latency COPY of a group of 64 agent batches (512
// rows, as the ingest benchmark's groups carry): as pgx's CopyFrom encodes it, value by value
// through its type map, with the server id as a string (before) and as a binary UUID, and as
// the store's own encoder does.
func BenchmarkEncodeGroupCopy(b *testing.B) {
	at := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	batch := telemetry.Batch{}
	for d := range 4 {
		for _, op := range []string{"read", "write"} {
			row := telemetry.DiskLatencyRow{Time: at, Device: "nvme" + string(rune('0'+d)) + "n1", Operation: op,
				IntervalSeconds: 10, Operations: 105, SumSeconds: 0.0067}
			row.Buckets[5], row.Buckets[6], row.Buckets[7] = 20, 40, 30
			batch.Deep.DiskLatency = append(batch.Deep.DiskLatency, row)
		}
	}
	types := map[string]string{}
	for _, c := range telemetry.DiskLatencyColumns {
		types[c] = "bigint"
	}
	types["time"], types["org_id"], types["server_id"] = "timestamp with time zone", "text", "uuid"
	types["device"], types["operation"] = "text", "text"
	types["interval_seconds"], types["sum_seconds"] = "double precision", "double precision"
	oids := map[string]uint32{"timestamp with time zone": pgtype.TimestamptzOID, "text": pgtype.TextOID, "uuid": pgtype.UUIDOID,
		"double precision": pgtype.Float8OID, "bigint": pgtype.Int8OID}
	rowsWith := func(server any) [][]any {
		set := newCopySet()
		for range 64 {
			addDeepRows(set, "org", server, batch)
		}
		return set.byName["disk_latency"].rows
	}
	const serverID = "0b5c6a2e-8f1e-4d6a-9a53-1f2d3c4b5a69"
	m := pgtype.NewMap()
	columnOIDs := make([]uint32, len(telemetry.DiskLatencyColumns)) // pgx has them from the statement's description
	for i, c := range telemetry.DiskLatencyColumns {
		columnOIDs[i] = oids[types[c]]
	}
	pgxEncode := func(b *testing.B, rows [][]any) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for _, row := range rows {
				for i, v := range row {
					var err error
					if buf, err = m.Encode(columnOIDs[i], pgtype.BinaryFormatCode, v, buf); err != nil {
						// pgx's CopyFrom then parses the value's text form; so does this benchmark.
						var u pgtype.UUID
						if u.Scan(v) != nil {
							b.Fatal(err)
						}
						buf = append(buf, u.Bytes[:]...)
					}
				}
			}
		}
	}
	b.Run("pgx-string-server-id", func(b *testing.B) { pgxEncode(b, rowsWith(serverID)) })
	b.Run("pgx-uuid-server-id", func(b *testing.B) { pgxEncode(b, rowsWith(uuidValue(serverID))) })
	b.Run("store", func(b *testing.B) {
		rows := rowsWith(uuidValue(serverID))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := encodeBinaryCopy(telemetry.DiskLatencyColumns, types, rows); !ok {
				b.Fatal("refused")
			}
		}
	})
}
