package store

import (
	"cmp"
	"context"
	"slices"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// WriteResult says what a request changed.
type WriteResult struct {
	WrittenBatches   int
	DuplicateBatches int   // at or below the high-water mark: acknowledged, not written again
	PreviousHWM      int64 // the mark before this request: batches at or below it were the duplicates
	DiskIORows       int
	MemoryRows       int
	DeepRows         int // rows of the deep-telemetry interval tables (deep.go)
	BatchHWM         int64
}

// WriteBatches writes the batches above the agent's high-water mark and advances the mark, in
// one transaction: a batch replayed after a timeout is acknowledged without a second copy, and
// a failure leaves neither rows nor a moved mark behind. It is a group (group.go) of one.
func (s *Store) WriteBatches(ctx context.Context, agent Agent, batches []telemetry.Batch) (WriteResult, error) {
	outcomes, err := s.writeGroup(ctx, []Member{{Agent: agent, Batches: batches}})
	if err != nil {
		return WriteResult{}, err
	}
	return outcomes[0].Result, outcomes[0].Err
}

// addIntervalRows adds the rows of one batch of agent to set: the wide disk_io and memory rows
// here, the deep families in deep.go.
func addIntervalRows(set *copySet, agent Agent, batch telemetry.Batch) {
	org, server := agent.OrgID, uuidValue(agent.ServerID) // org_id is text, server_id uuid
	for i := range batch.DiskIO {
		set.add("disk_io", telemetry.DiskIOColumns, batch.DiskIO[i].CopyValues(org, server))
	}
	for i := range batch.Memory {
		set.add("memory", telemetry.MemoryColumns, batch.Memory[i].CopyValues(org, server))
	}
	addDeepRows(set, org, server, batch)
}

// uuidValue is a server id as the interval rows carry it: a binary UUID, which pgx and the
// store's COPY encoder (copybinary.go) encode directly. Given the string, pgx fails to plan a
// binary encoding, formats an error and falls back to parsing text, for every value (4 % of the
// gateway's CPU in the ingest benchmark). An id that does not parse, which the database never
// returns, stays the string and takes pgx's slow path.
func uuidValue(id string) any {
	u, err := uuidParam(id)
	if err != nil {
		return id
	}
	return u
}

// uuidText is the text of an id uuidValue made.
func uuidText(id any) string {
	if u, ok := id.(pgtype.UUID); ok {
		return u.String()
	}
	s, _ := id.(string)
	return s
}

// splitAtMark sorts batches by sequence and splits them at the high-water mark hwm, which rises
// as batches are taken: the ones to write, the duplicates, and the new mark.
func splitAtMark(batches []telemetry.Batch, hwm int64) (write []telemetry.Batch, duplicates int, mark int64) {
	ordered := slices.SortedStableFunc(slices.Values(batches), func(a, b telemetry.Batch) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, batch := range ordered {
		if batch.Seq <= hwm {
			duplicates++
			continue
		}
		hwm = batch.Seq
		write = append(write, batch)
	}
	return write, duplicates, hwm
}

// newestHost is the host metadata of the highest batch of a request.
func newestHost(batches []telemetry.Batch) telemetry.HostInfo {
	var host telemetry.HostInfo
	var seq int64
	for i, b := range batches {
		if i == 0 || b.Seq >= seq {
			host, seq = b.Host, b.Seq
		}
	}
	return host
}

// mergeHost lays newer over older field by field: an attribute a later request did not send
// keeps the earlier one's value, as the UPDATE's COALESCE does across transactions.
func mergeHost(older, newer telemetry.HostInfo) telemetry.HostInfo {
	pick := func(o, n string) string { return cmp.Or(n, o) }
	return telemetry.HostInfo{Hostname: pick(older.Hostname, newer.Hostname), OS: pick(older.OS, newer.OS),
		OSVersion: pick(older.OSVersion, newer.OSVersion), Kernel: pick(older.Kernel, newer.Kernel),
		Arch: pick(older.Arch, newer.Arch), AgentVersion: pick(older.AgentVersion, newer.AgentVersion)}
}
