// Package bench is the agent's A/B proof run: standard storage workloads (SEED-FACTS.md) run
// stepped over load, with the acceleration features off and on (passes off/on/on/off, so drift
// cancels), reporting per step IOPS, MB/s and latency mean/p95/p99, the improvement, the
// saturation point and where the reads went. `spindle-agent bench` and the console's remote
// runs both call Run.
//
// Safety: a run touches only a scratch directory it creates inside the first path the request
// allows (and, for a profile's separate log file, inside the second when given); it refuses
// paths that resolve outside them, refuses to start when its files would take the file
// system's free space below the floor, obeys the size and time limits, stops at once when its
// context ends, and removes its files afterwards whatever happened.
package bench

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Request is one benchmark run as a person (or the console) asks for it. The zero value of an
// optional field means its default (see Defaults).
type Request struct {
	// Profile is one of Profiles()' names: "sqlio", "fileserver", "oltp", "pgbench".
	Profile string `json:"profile"`
	// Paths are the absolute directories the run may create files in. The data files go in a
	// new scratch directory inside Paths[0]; a profile's separate log file goes inside Paths[1]
	// when given (a separate device, as the transaction log of SEED-FACTS.md), else Paths[0].
	Paths []string `json:"paths"`
	// SizeLimitBytes caps the bytes of all files the run creates (data files plus log growth).
	SizeLimitBytes int64 `json:"sizeLimitBytes"`
	// TimeLimitSeconds caps the whole run's wall time, preparation and clean-up included; a plan
	// that cannot fit is refused before anything is written.
	TimeLimitSeconds float64 `json:"timeLimitSeconds"`
	// StepSeconds is how long each load step is measured in each pass; default 5.
	StepSeconds float64 `json:"stepSeconds,omitempty"`
	// LatencyLimitSeconds is the response-time limit for the saturation point: the first step
	// whose mean latency crosses it. Default 0.1 (100 ms, as in the seed reports).
	LatencyLimitSeconds float64 `json:"latencyLimitSeconds,omitempty"`
	// FreeSpaceFloorBytes: the run is refused when its files would leave less free space than
	// this on any file system it writes to. Default: the larger of 1 GiB and 5 % of the file system.
	FreeSpaceFloorBytes int64 `json:"freeSpaceFloorBytes,omitempty"`
	// DirectIO opens the data files with O_DIRECT (aligned buffers), bypassing the page cache.
	// Not allowed with AB: the read cache's effect is the page cache, so an A/B run reads buffered.
	DirectIO bool `json:"directIO"`
	// AB runs a warm-up pass, then blocks of passes off/on/on/off with the acceleration features
	// switched by the Accelerator, adding blocks until the intervals are within the target or
	// the time limit comes; false runs one pass with the features off.
	AB bool `json:"ab"`
	// TargetHalfWidthPercent (A/B): the runner stops adding blocks once every step's throughput
	// and mean response-time change is known within ± this many percent. Default 5.
	TargetHalfWidthPercent float64 `json:"targetHalfWidthPercent,omitempty"`
	// ReadCacheBudgetBytes is the read cache's budget for the benchmark files in the "on"
	// passes; default: the data files' total size (the cache may hold them all if memory allows).
	ReadCacheBudgetBytes int64 `json:"readCacheBudgetBytes,omitempty"`
	// Loads overrides the profile's load steps (threads x outstanding I/Os, or pgbench clients).
	Loads []Load `json:"loads,omitempty"`
	// Postgres is the database the pgbench profile runs against; required for "pgbench" only.
	Postgres *PostgresTarget `json:"postgres,omitempty"`
}

// PostgresTarget is where the pgbench profile runs: it creates a scratch database there
// (dropped afterwards), so the role needs CREATEDB.
type PostgresTarget struct {
	// ConnString is a libpq connection string or URL to a database the role can connect to
	// (used to create and drop the scratch database), e.g. "host=/var/run/postgresql user=postgres".
	ConnString string `json:"connString"`
	// PgbenchPath is the pgbench binary; default: found on PATH.
	PgbenchPath string `json:"pgbenchPath,omitempty"`
}

// Load is one load step: Threads workers each keeping Outstanding I/Os in flight (the SQLIO
// "threads x outstanding I/Os"), or Clients pgbench clients.
type Load struct {
	Threads     int `json:"threads,omitempty"`
	Outstanding int `json:"outstanding,omitempty"`
	Clients     int `json:"clients,omitempty"`
}

// String is the load as the reports write it: "4 x 8" or "16 clients".
func (l Load) String() string {
	if l.Clients == 1 {
		return "1 client"
	}
	if l.Clients > 0 {
		return fmt.Sprintf("%d clients", l.Clients)
	}
	return fmt.Sprintf("%d x %d", l.Threads, l.Outstanding)
}

// Defaults used when a Request leaves a field zero.
const (
	DefaultStepSeconds         = 5
	DefaultLatencyLimitSeconds = 0.1
	DefaultTargetHalfWidth     = 5 // percent
	// MinBlocks of off/on/on/off an A/B run finishes before it may stop: with fewer pass pairs
	// no interval can be formed. MaxBlocks bounds the run (and the report's size).
	MinBlocks           = 2
	MaxBlocks           = 12
	DefaultFloorBytes   = 1 << 30
	DefaultFloorPercent = 5
	// MaxOutstandingPerStep bounds threads x outstanding of one step (each is a goroutine).
	MaxOutstandingPerStep = 4096
)

// ErrInvalid wraps every validation error, so callers can tell a bad request from a failed run.
var ErrInvalid = errors.New("invalid benchmark request")

// ErrRefused wraps refusals found on the machine: a path outside the allowed ones, or a run
// that would take free space below the floor.
var ErrRefused = errors.New("benchmark refused")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// withDefaults fills the optional fields.
func (r Request) withDefaults() Request {
	if r.StepSeconds <= 0 {
		r.StepSeconds = DefaultStepSeconds
	}
	if r.LatencyLimitSeconds <= 0 {
		r.LatencyLimitSeconds = DefaultLatencyLimitSeconds
	}
	if r.TargetHalfWidthPercent <= 0 {
		r.TargetHalfWidthPercent = DefaultTargetHalfWidth
	}
	return r
}

// Validate checks the request without touching the machine; Run also checks paths and free
// space on the machine before writing anything. Every error wraps ErrInvalid and says what to fix.
func (r Request) Validate() error {
	profile, ok := profileByName(r.Profile)
	if !ok {
		return invalid("unknown profile %q: choose one of %s", r.Profile, strings.Join(ProfileNames(), ", "))
	}
	if len(r.Paths) == 0 {
		return invalid("no path given: name at least one directory the benchmark may write in")
	}
	if len(r.Paths) > 2 {
		return invalid("%d paths given: give one data directory and optionally one log directory", len(r.Paths))
	}
	for _, p := range r.Paths {
		if !filepath.IsAbs(p) {
			return invalid("path %q is not absolute", p)
		}
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if part == ".." {
				return invalid("path %q contains \"..\": name the directory itself", p)
			}
		}
	}
	if r.SizeLimitBytes <= 0 {
		return invalid("no size limit: set how many bytes the benchmark's files may take")
	}
	if r.TimeLimitSeconds <= 0 {
		return invalid("no time limit: set how long the whole run may take")
	}
	if r.StepSeconds < 0 || r.LatencyLimitSeconds < 0 || r.FreeSpaceFloorBytes < 0 || r.ReadCacheBudgetBytes < 0 ||
		r.TargetHalfWidthPercent < 0 {
		return invalid("step duration, latency limit, free-space floor, read cache budget and target interval cannot be negative")
	}
	if r.TargetHalfWidthPercent > 100 {
		return invalid("target interval ±%.0f %% is wider than any change it could tell: use at most ±100 %%", r.TargetHalfWidthPercent)
	}
	if r.StepSeconds > 0 && r.StepSeconds < 1 {
		return invalid("step duration %.2f s is too short to measure: use at least 1 s", r.StepSeconds)
	}
	if r.DirectIO && r.AB {
		return invalid("direct I/O bypasses the page cache the read cache works on: an A/B run reads " +
			"buffered, so switch direct I/O off (or run without A/B)")
	}
	if r.DirectIO && profile.Kind == KindPgbench {
		return invalid("direct I/O does not apply to the pgbench profile: PostgreSQL does its own I/O")
	}
	for i, l := range r.Loads {
		if profile.Kind == KindPgbench {
			if l.Clients <= 0 || l.Threads != 0 || l.Outstanding != 0 {
				return invalid("load step %d: the pgbench profile steps clients only (clients > 0)", i+1)
			}
			continue
		}
		if l.Clients != 0 || l.Threads <= 0 || l.Outstanding <= 0 {
			return invalid("load step %d: give threads > 0 and outstanding I/Os > 0", i+1)
		}
		if l.Threads*l.Outstanding > MaxOutstandingPerStep {
			return invalid("load step %d: %d x %d exceeds %d I/Os in flight", i+1, l.Threads, l.Outstanding, MaxOutstandingPerStep)
		}
	}
	if profile.Kind == KindPgbench {
		if r.Postgres == nil || strings.TrimSpace(r.Postgres.ConnString) == "" {
			return invalid("the pgbench profile needs a PostgreSQL connection string")
		}
	}
	plan := r.withDefaults().planSeconds(profile)
	if plan > r.TimeLimitSeconds {
		what := ""
		if r.AB {
			what = fmt.Sprintf(", an A/B run at least a warm-up pass and %d blocks of off, on, on, off", MinBlocks)
		}
		return invalid("the plan needs about %.0f s (%d steps x %d passes x %.0f s plus preparation%s) but the "+
			"time limit is %.0f s: raise the limit, shorten the step duration or give fewer load steps",
			plan, len(r.loads(profile))*len(profile.workloads()), r.passes(), r.withDefaults().StepSeconds, what, r.TimeLimitSeconds)
	}
	return nil
}

// loads are the request's steps, or the profile's.
func (r Request) loads(p Profile) []Load {
	if len(r.Loads) > 0 {
		return r.Loads
	}
	return p.Loads
}

// passes is the least a run does: for A/B the warm-up pass and MinBlocks blocks of 4; else 1.
func (r Request) passes() int {
	if r.AB {
		return 1 + 4*MinBlocks
	}
	return 1
}

// planSeconds estimates the least wall time the run needs: measured steps plus a preparation
// allowance (writing the data files at a conservative 50 MB/s, and a settle second per pass).
// An A/B run adds blocks beyond its minimum only while the next one fits in the time limit.
func (r Request) planSeconds(p Profile) float64 {
	steps := len(r.loads(p)) * len(p.workloads())
	measured := float64(steps*r.passes()) * r.StepSeconds
	prepare := float64(r.SizeLimitBytes)/50e6 + float64(r.passes())
	return measured + prepare
}

// TimeLimit is TimeLimitSeconds as a duration.
func (r Request) TimeLimit() time.Duration {
	return time.Duration(r.TimeLimitSeconds * float64(time.Second))
}
