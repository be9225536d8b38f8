package benchrun

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// remoteRequest is what the console may ask of a proof run: the fields of bench.Request it
// sends, and nothing that decides what runs as root or how full a disk may get. The pgbench
// binary, the PostgreSQL connection and the free-space floor come from agent.yaml only (Local),
// so whoever can write a run's row in the database cannot run a local binary as root or lower
// the floor to a byte (issue 25, L1). A request naming them is refused as not understood.
type remoteRequest struct {
	Paths               []string `json:"paths"`
	SizeLimitBytes      int64    `json:"sizeLimitBytes"`
	TimeLimitSeconds    float64  `json:"timeLimitSeconds"`
	StepSeconds         float64  `json:"stepSeconds,omitempty"`
	LatencyLimitSeconds float64  `json:"latencyLimitSeconds,omitempty"`
	// TargetHalfWidthPercent: A/B blocks are added until every change is known within ± this.
	TargetHalfWidthPercent float64      `json:"targetHalfWidthPercent,omitempty"`
	DirectIO               bool         `json:"directIO"`
	AB                     bool         `json:"ab"`
	ReadCacheBudgetBytes   int64        `json:"readCacheBudgetBytes,omitempty"`
	Loads                  []bench.Load `json:"loads,omitempty"`
}

// Local is what only the server's operator decides about proof runs (agent.yaml bench).
type Local struct {
	// FreeSpaceFloorBytes (bench.free_space_floor_bytes): a run is refused when its files would
	// leave less free space; 0 means bench's default (1 GiB or 5 % of the file system).
	FreeSpaceFloorBytes int64
	// Postgres (bench.pgbench): where the pgbench profile runs, and with which binary; nil
	// refuses pgbench runs from the console.
	Postgres *bench.PostgresTarget
}

// decodeRequest reads the console's parameters strictly (a field the agent does not take from
// the console is a request it cannot honour as asked) and completes them from Local.
func decodeRequest(profile string, parameters json.RawMessage, local Local) (bench.Request, error) {
	var remote remoteRequest
	decoder := json.NewDecoder(bytes.NewReader(parameters))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&remote); err != nil {
		return bench.Request{}, fmt.Errorf("the run's parameters are not a proof-run request this agent takes from the console "+
			"(the free-space floor, PostgreSQL connection and pgbench binary are set in agent.yaml only): %w", err)
	}
	req := bench.Request{
		Profile: profile, Paths: remote.Paths, SizeLimitBytes: remote.SizeLimitBytes, TimeLimitSeconds: remote.TimeLimitSeconds,
		StepSeconds: remote.StepSeconds, LatencyLimitSeconds: remote.LatencyLimitSeconds,
		TargetHalfWidthPercent: remote.TargetHalfWidthPercent, DirectIO: remote.DirectIO, AB: remote.AB,
		ReadCacheBudgetBytes: remote.ReadCacheBudgetBytes, Loads: remote.Loads,
		FreeSpaceFloorBytes: local.FreeSpaceFloorBytes,
	}
	if local.Postgres != nil {
		target := *local.Postgres
		req.Postgres = &target
	}
	if err := req.Validate(); err != nil {
		if req.Postgres == nil && profile == "pgbench" {
			return bench.Request{}, fmt.Errorf("%w; this agent runs pgbench from the console only against the database in agent.yaml (bench.pgbench.conn_string)", err)
		}
		return bench.Request{}, err
	}
	return req, nil
}
