package proofrun

import "sort"

// Kind says how a profile drives I/O.
type Kind string

const (
	KindGenerator Kind = "generator" // the agent's own I/O generator
	KindPgbench   Kind = "pgbench"   // PostgreSQL's pgbench against a scratch database
)

// SizeShare is one I/O size and its share of the I/Os, in percent.
type SizeShare struct {
	Bytes   int     `json:"bytes"`
	Percent float64 `json:"percent"`
}

// Mix is one workload the generator runs: what fraction reads, how random, which sizes, and
// where in the file. Percentages are of I/Os.
type Mix struct {
	Name        string  `json:"name"`
	ReadPercent float64 `json:"readPercent"`
	// RandomPercent of I/Os go to a random offset; the rest continue sequentially from the
	// previous I/O of the same worker.
	RandomPercent float64     `json:"randomPercent"`
	Sizes         []SizeShare `json:"sizes"`
	// SpanPercent limits I/O to the first SpanPercent of the file (100 when zero).
	SpanPercent float64 `json:"spanPercent,omitempty"`
	// Hotspots, when > 0, places HotspotIOPercent of the random I/Os in that many equal regions
	// covering HotspotSpanPercent of the span (spread evenly across it).
	Hotspots           int     `json:"hotspots,omitempty"`
	HotspotSpanPercent float64 `json:"hotspotSpanPercent,omitempty"`
	HotspotIOPercent   float64 `json:"hotspotIOPercent,omitempty"`
	// LogPercent, when > 0, adds a transaction-log writer: 64 KiB sequential appends (each
	// made durable with fdatasync) to a separate, growing file, at LogPercent as many I/Os as
	// the data file gets.
	LogPercent float64 `json:"logPercent,omitempty"`
}

// Profile is a standard workload, stepped over Loads. Workloads run one after another, each
// over every load (the SQLIO sweep has four; the others one).
type Profile struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        Kind   `json:"kind"`
	Mixes       []Mix  `json:"mixes,omitempty"`
	Loads       []Load `json:"loads"`
	// Source says where the definition comes from.
	Source string `json:"source"`
}

func (p Profile) workloads() []Mix {
	if p.Kind == KindPgbench {
		return []Mix{{Name: "pgbench tpcb-like"}}
	}
	return p.Mixes
}

const kib = 1024

var fileServerSizes = []SizeShare{
	{512, 10}, {1 * kib, 5}, {2 * kib, 5}, {4 * kib, 60}, {8 * kib, 2}, {16 * kib, 4}, {32 * kib, 4}, {64 * kib, 10},
}

var oltpSizes = []SizeShare{
	{512, 3.5}, {1 * kib, 2.5}, {2 * kib, 3.5}, {4 * kib, 16}, {8 * kib, 34.5}, {16 * kib, 16},
	{32 * kib, 8}, {64 * kib, 5.5}, {128 * kib, 7.5}, {256 * kib, 3},
}

var profiles = []Profile{
	{
		Name: "sqlio",
		Description: "SQLIO-style sweep at 64 KiB: random read, random write, sequential read, " +
			"sequential write, each over threads x outstanding I/Os",
		Kind: KindGenerator,
		Mixes: []Mix{
			{Name: "random read 64 KiB", ReadPercent: 100, RandomPercent: 100, Sizes: []SizeShare{{64 * kib, 100}}},
			{Name: "random write 64 KiB", ReadPercent: 0, RandomPercent: 100, Sizes: []SizeShare{{64 * kib, 100}}},
			{Name: "sequential read 64 KiB", ReadPercent: 100, RandomPercent: 0, Sizes: []SizeShare{{64 * kib, 100}}},
			{Name: "sequential write 64 KiB", ReadPercent: 0, RandomPercent: 0, Sizes: []SizeShare{{64 * kib, 100}}},
		},
		// Kept small so a default run fits modest limits; the published sweep goes to 64 x 128.
		Loads:  []Load{{Threads: 1, Outstanding: 1}, {Threads: 2, Outstanding: 4}, {Threads: 4, Outstanding: 8}},
		Source: "SEED-FACTS.md section 4 (host flash cache, SQLIO sweep)",
	},
	{
		Name: "fileserver",
		Description: "IOmeter file-server mix: 80 % reads, 100 % random, sector aligned, " +
			"512 B-64 KiB (4 KiB 60 %)",
		Kind:   KindGenerator,
		Mixes:  []Mix{{Name: "file server", ReadPercent: 80, RandomPercent: 100, Sizes: fileServerSizes}},
		Loads:  []Load{{Threads: 1, Outstanding: 1}, {Threads: 2, Outstanding: 4}, {Threads: 4, Outstanding: 8}, {Threads: 8, Outstanding: 16}},
		Source: "SEED-FACTS.md section 5 (IOmeter file-server mix)",
	},
	{
		Name: "oltp",
		Description: "Pseudo-OLTP: first 80 % of the file, 30 hotspots over 15 % get 83 % of I/Os, " +
			"90 % random, 65 % reads, 512 B-256 KiB; plus a 64 KiB sequential log writer at ~15 % of the I/Os",
		Kind: KindGenerator,
		Mixes: []Mix{{Name: "pseudo-OLTP", ReadPercent: 65, RandomPercent: 90, Sizes: oltpSizes,
			SpanPercent: 80, Hotspots: 30, HotspotSpanPercent: 15, HotspotIOPercent: 83, LogPercent: 15}},
		Loads:  []Load{{Threads: 1, Outstanding: 1}, {Threads: 2, Outstanding: 4}, {Threads: 4, Outstanding: 8}, {Threads: 8, Outstanding: 16}},
		Source: "SEED-FACTS.md section 5 (VDBench pseudo-OLTP and transaction log)",
	},
	{
		Name: "pgbench",
		Description: "pgbench (TPC-B-like) against a scratch database sized to the size limit, " +
			"stepped over client counts; TPS and latency per step",
		Kind:   KindPgbench,
		Loads:  []Load{{Clients: 1}, {Clients: 4}, {Clients: 8}, {Clients: 16}},
		Source: "PostgreSQL pgbench; stands in for the seed reports' database loads (sections 1, 5)",
	},
}

// Profiles lists the standard profiles, for the console's request form.
func Profiles() []Profile {
	out := make([]Profile, len(profiles))
	copy(out, profiles)
	return out
}

// ProfileNames lists the profiles' names, sorted.
func ProfileNames() []string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

func profileByName(name string) (Profile, bool) {
	for _, p := range profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}
