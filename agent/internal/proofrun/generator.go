package proofrun

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ioAlign is the offset and buffer alignment: 4 KiB for I/Os of 4 KiB and more, 512 B (a
// sector) below, which O_DIRECT accepts on devices with 512-byte logical blocks.
func ioAlign(size int) int64 {
	if size >= 4096 {
		return 4096
	}
	return 512
}

// alignedBuffer returns size bytes starting at a 4096-byte boundary (O_DIRECT needs aligned memory).
func alignedBuffer(size int) []byte {
	raw := make([]byte, size+4096)
	shift := (4096 - int(uintptr(unsafe.Pointer(&raw[0]))%4096)) % 4096
	return raw[shift : shift+size]
}

// target is where a step's I/O goes.
type target struct {
	read, write *os.File // write is O_DSYNC when the run is buffered
	size        int64
	direct      bool
	residency   *residency // nil for direct I/O: reads are not classified
}

// logTarget is the transaction-log writer's file: 64 KiB sequential appends, each followed by
// fdatasync, wrapping to the start when capBytes is reached (a circular log).
type logTarget struct {
	file     *os.File
	capBytes int64
	grown    atomic.Int64 // largest size reached
}

const logWriteBytes = 64 * kib

// stepPlan is one step: the mix, the load, and how long.
type stepPlan struct {
	mix      Mix
	load     Load
	duration time.Duration
	seed     uint64
}

// workerState is one in-flight I/O slot's own counters (no sharing while measuring).
type workerState struct {
	latency   histogram
	ops       int64
	bytes     int64
	reads     readTiers
	err       error
	sequenced int64 // next sequential offset
}

// runStep issues the mix's I/O from load.Threads x load.Outstanding synchronous workers for the
// step's duration and returns what completed within it. It stops early when ctx ends.
func runStep(ctx context.Context, t target, log *logTarget, plan stepPlan) (measure, error) {
	workers := plan.load.Threads * plan.load.Outstanding
	span := t.size
	if plan.mix.SpanPercent > 0 {
		span = int64(float64(t.size) * plan.mix.SpanPercent / 100)
	}
	chooser := newOffsetChooser(plan.mix, span)
	states := make([]*workerState, workers)
	var dataOps atomic.Int64
	start := time.Now()
	end := start.Add(plan.duration)
	stepCtx, stop := context.WithDeadline(ctx, end)
	defer stop()

	// Workers hold their P through each I/O (positionalIO), so with fewer Ps than workers the
	// I/Os in flight would fall short of the load; give every worker a P for the step, and two
	// for the rest of the agent (the workers mostly sleep in the kernel: this adds no CPU).
	if previous := runtime.GOMAXPROCS(0); previous < workers+2 {
		runtime.GOMAXPROCS(workers + 2)
		defer runtime.GOMAXPROCS(previous)
	}
	var stopped atomic.Bool
	context.AfterFunc(stepCtx, func() { stopped.Store(true) })
	var wg sync.WaitGroup
	for w := range workers {
		st := &workerState{sequenced: span / int64(workers) * int64(w)}
		states[w] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(plan.seed, uint64(w)+1))
			buffer := alignedBuffer(maxSize(plan.mix.Sizes))
			for i := 0; i+8 <= len(buffer); i += 8 { // written data is random, as fio's: never all zeros
				binary.LittleEndian.PutUint64(buffer[i:], rng.Uint64())
			}
			vector := make([]byte, len(buffer)/4096+2)
			readAt, _ := positionalIO(t.read)
			_, writeAt := positionalIO(t.write)
			for !stopped.Load() {
				size := pickSize(rng, plan.mix.Sizes)
				read := rng.Float64()*100 < plan.mix.ReadPercent
				var offset int64
				if rng.Float64()*100 < plan.mix.RandomPercent {
					offset = chooser.random(rng, size)
				} else {
					offset = chooser.sequential(&st.sequenced, size)
				}
				memory, classified := false, false
				if read && t.residency != nil {
					resident, err := t.residency.resident(offset, int64(size), vector)
					if err == nil {
						memory, classified = resident, true
					}
				}
				began := time.Now()
				var err error
				if read {
					_, err = readAt(buffer[:size], offset)
				} else {
					_, err = writeAt(buffer[:size], offset)
				}
				done := time.Now()
				if err != nil {
					if stepCtx.Err() == nil {
						st.err = err
					}
					return
				}
				if done.After(end) {
					return // completed after the step: not counted, like fio's runtime cut-off
				}
				elapsed := done.Sub(began)
				st.latency.record(elapsed)
				st.ops++
				st.bytes += int64(size)
				dataOps.Add(1)
				if classified {
					st.reads.classified = true
					if memory {
						st.reads.memory++
						st.reads.memoryNanos += int64(elapsed)
					} else {
						st.reads.storage++
						st.reads.storageNanos += int64(elapsed)
					}
				}
			}
		}()
	}
	var logWrites int64
	var logErr error
	if log != nil && plan.mix.LogPercent > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logWrites, logErr = writeLog(stepCtx, log, &dataOps, plan.mix.LogPercent)
		}()
	}
	wg.Wait()
	elapsed := min(time.Since(start), plan.duration)
	m := measure{seconds: elapsed.Seconds(), latency: &histogram{}, logWrites: logWrites}
	for _, st := range states {
		if st.err != nil {
			return m, st.err
		}
		m.latency.merge(&st.latency)
		m.operations += st.ops
		m.bytes += st.bytes
		m.reads.add(st.reads)
	}
	if logErr != nil {
		return m, logErr
	}
	if err := ctx.Err(); err != nil {
		return m, err
	}
	return m, nil
}

// writeLog appends 64 KiB records while its count stays below percent of the data I/Os, each
// made durable with fdatasync, as a database's log writer does at commit.
func writeLog(ctx context.Context, log *logTarget, dataOps *atomic.Int64, percent float64) (int64, error) {
	buffer := alignedBuffer(logWriteBytes)
	for i := range buffer {
		buffer[i] = byte(i * 7)
	}
	var writes int64
	offset := log.grown.Load()
	for ctx.Err() == nil {
		if float64(writes+1)*100 > float64(dataOps.Load())*percent {
			time.Sleep(200 * time.Microsecond)
			continue
		}
		if offset+logWriteBytes > log.capBytes {
			offset = 0 // circular, like a log that wraps at its size limit
		}
		if _, err := log.file.WriteAt(buffer, offset); err != nil {
			return writes, err
		}
		if err := log.file.Sync(); err != nil { // fsync on Linux via os.File; durable like a commit
			return writes, err
		}
		offset += logWriteBytes
		if offset > log.grown.Load() {
			log.grown.Store(offset)
		}
		writes++
	}
	return writes, nil
}

func maxSize(sizes []SizeShare) int {
	largest := 0
	for _, s := range sizes {
		largest = max(largest, s.Bytes)
	}
	return largest
}

// pickSize draws an I/O size by the mix's shares (they need not sum to exactly 100).
func pickSize(rng *rand.Rand, sizes []SizeShare) int {
	total := 0.0
	for _, s := range sizes {
		total += s.Percent
	}
	x := rng.Float64() * total
	for _, s := range sizes {
		if x < s.Percent {
			return s.Bytes
		}
		x -= s.Percent
	}
	return sizes[len(sizes)-1].Bytes
}

// offsetChooser places I/Os inside the span: uniformly, or with hotspots taking their share.
type offsetChooser struct {
	span         int64
	hotspots     int
	hotspotBytes int64 // each hotspot's length
	hotShare     float64
}

func newOffsetChooser(mix Mix, span int64) offsetChooser {
	c := offsetChooser{span: span}
	if mix.Hotspots > 0 {
		c.hotspots = mix.Hotspots
		c.hotspotBytes = int64(float64(span) * mix.HotspotSpanPercent / 100 / float64(mix.Hotspots))
		c.hotShare = mix.HotspotIOPercent
	}
	return c
}

// random is an aligned offset for an I/O of size bytes.
func (c offsetChooser) random(rng *rand.Rand, size int) int64 {
	align := ioAlign(size)
	low, length := int64(0), c.span
	if c.hotspots > 0 && c.hotspotBytes >= int64(size) && rng.Float64()*100 < c.hotShare {
		// hotspot i starts at i/hotspots of the span, so the 30 regions spread across it
		i := rng.IntN(c.hotspots)
		low, length = c.span/int64(c.hotspots)*int64(i), c.hotspotBytes
	}
	slots := (length - int64(size)) / align
	if slots <= 0 {
		return low / align * align
	}
	return (low + rng.Int64N(slots+1)*align) / align * align
}

// sequential continues from *cursor, wrapping at the end of the span.
func (c offsetChooser) sequential(cursor *int64, size int) int64 {
	align := ioAlign(size)
	offset := *cursor / align * align
	if offset+int64(size) > c.span {
		offset = 0
	}
	*cursor = offset + int64(size)
	return offset
}
