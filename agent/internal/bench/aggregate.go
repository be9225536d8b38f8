package bench

// measure is one step of one pass, as measured.
type measure struct {
	pass       int // 0-based position in Report.PassOrder
	side       Side
	warmUp     bool
	seconds    float64
	operations int64
	bytes      int64
	latency    *histogram // per operation (I/O or transaction)
	logWrites  int64
	tps        *float64 // pgbench only
	reads      readTiers
}

// throughput is the step's main figure in this pass: TPS for pgbench, IOPS otherwise.
func (m measure) throughput() float64 {
	switch {
	case m.tps != nil:
		return *m.tps
	case m.seconds > 0:
		return float64(m.operations) / m.seconds
	}
	return 0
}

// readTiers counts read I/Os by where they were served from, with their latency.
type readTiers struct {
	classified                bool // buffered reads whose residency was checked
	storage, memory           int64
	storageNanos, memoryNanos int64
}

func (t *readTiers) add(o readTiers) {
	t.classified = t.classified || o.classified
	t.storage += o.storage
	t.memory += o.memory
	t.storageNanos += o.storageNanos
	t.memoryNanos += o.memoryNanos
}

// result is the mean over one side's compared passes of a step: the mean of each pass's
// figure, so every pass weighs the same.
func result(ms []measure) *Result {
	if len(ms) == 0 {
		return nil
	}
	out := &Result{Passes: len(ms)}
	var tps float64
	n := float64(len(ms))
	for _, m := range ms {
		if m.seconds > 0 {
			out.IOPS += float64(m.operations) / m.seconds / n
			out.MBps += float64(m.bytes) / 1e6 / m.seconds / n
		}
		out.LatencyMeanSeconds += m.latency.mean() / n
		out.LatencyP95Seconds += m.latency.quantile(0.95) / n
		out.LatencyP99Seconds += m.latency.quantile(0.99) / n
		out.Operations += m.operations
		out.Bytes += m.bytes
		out.LogWrites += m.logWrites
		if m.tps != nil {
			tps += *m.tps / n
		}
	}
	if ms[0].tps != nil {
		out.TPS = &tps
	}
	return out
}

// passResult is one step in one pass as the report keeps it.
func passResult(m measure) PassResult {
	r := PassResult{Pass: m.pass + 1, Side: m.side, WarmUp: m.warmUp, Throughput: m.throughput(),
		LatencyMeanSeconds: m.latency.mean(), LatencyP95Seconds: m.latency.quantile(0.95),
		LatencyP99Seconds: m.latency.quantile(0.99), Operations: m.operations}
	if m.seconds > 0 {
		r.MBps = float64(m.bytes) / 1e6 / m.seconds
	}
	return r
}

// saturation is the first step (in step order, within each workload the loads rise) whose mean
// latency crosses the limit on one side; nil when that side was not run.
func saturation(steps []Step, side Side, limit float64) *Saturation {
	ran := false
	for _, s := range steps {
		r := s.Off
		if side == On {
			r = s.On
		}
		if r == nil {
			continue
		}
		ran = true
		if r.LatencyMeanSeconds > limit {
			index, latency := s.Index, r.LatencyMeanSeconds
			return &Saturation{Reached: true, Step: &index, Label: s.Label, LatencyMeanSeconds: &latency}
		}
	}
	if !ran {
		return nil
	}
	return &Saturation{Reached: false}
}

// placement turns one side's read tiers into the report's form: a description of where the
// reads were served from, not what the features caused (Reads.Caused is that).
func placement(t readTiers, directIO bool, kind Kind) *ReadPlacement {
	switch {
	case kind == KindPgbench:
		return &ReadPlacement{Basis: "not measured: PostgreSQL's reads are not seen by the benchmark " +
			"(its shared buffers and the page cache both serve them)"}
	case directIO:
		return &ReadPlacement{Basis: "not classified: direct I/O bypasses the page cache, so every read " +
			"went to storage; its latency is the step latency"}
	case !t.classified:
		return &ReadPlacement{Basis: "not measured: this workload issued no buffered reads"}
	}
	storage, memory := t.storage, t.memory
	p := &ReadPlacement{Measured: true, StorageReads: &storage, MemoryReads: &memory,
		Basis: "each buffered read classified before it was issued: all its pages resident in the " +
			"page cache (mincore on a mapping of the file) = memory read, otherwise storage read",
		LatencySource: "the generator's own timing of each read, grouped by its class"}
	if total := storage + memory; total > 0 {
		share := 100 * float64(storage) / float64(total)
		p.StorageReadPercent = &share
	}
	if storage > 0 {
		v := float64(t.storageNanos) / float64(storage) / 1e9
		p.StorageLatencySeconds = &v
	}
	if memory > 0 {
		v := float64(t.memoryNanos) / float64(memory) / 1e9
		p.MemoryLatencySeconds = &v
	}
	return p
}

// fillSteps sets each step's sides (means over the compared passes) and per-pass values from
// the measures (indexed like rep.Steps), the read placement per side and per pass, and the
// saturation points.
func fillSteps(rep *Report, measures [][]measure, kind Kind) {
	tiers := map[Side]*readTiers{Off: {}, On: {}}
	for i := range rep.Steps {
		var off, on []measure
		rep.Steps[i].Passes = []PassResult{}
		for _, m := range measures[i] {
			rep.Steps[i].Passes = append(rep.Steps[i].Passes, passResult(m))
			if m.warmUp {
				continue
			}
			if m.side == On {
				on = append(on, m)
			} else {
				off = append(off, m)
			}
			tiers[m.side].add(m.reads)
		}
		rep.Steps[i].Off, rep.Steps[i].On = result(off), result(on)
	}
	rep.Reads.Off = placement(*tiers[Off], rep.DirectIO, kind)
	rep.Reads.Passes = passReads(measures)
	if rep.AB {
		rep.Reads.On = placement(*tiers[On], rep.DirectIO, kind)
	}
	rep.Saturation.Off = saturation(rep.Steps, Off, rep.LatencyLimitSeconds)
	if rep.AB {
		rep.Saturation.On = saturation(rep.Steps, On, rep.LatencyLimitSeconds)
	}
}
