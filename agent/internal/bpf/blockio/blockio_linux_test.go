package blockio

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf/ringbuf"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	mrcpkg "github.com/spindle-io/spindle/agent/internal/mrc"
)

// TestMergedProgramsCountEveryIO drives O_DIRECT reads and writes on a loop device through the
// one block_rq_issue and one block_rq_complete program with latency and block sampling both on,
// and holds them to the kernel's own account of that device (/sys/block/<loop>/stat): the I/Os
// in the latency histograms plus the untimed ones the agent reports are the device's, per
// direction. The block sampler must hand over exactly the accesses whose mrc.BlockKeyHash falls
// below the threshold (1 in 8 here: sampling is system-wide and a busy host's other disks share
// the ring), less those of I/Os no program ran for. Run twice: with the
// kernel's issue stamps (RQF_STATS) and with the programs' own table, the path of kernels and
// queues without them; with the kernel's stamps, on a host whose disks all have them, the issue
// program must not even be attached (one program per block I/O).
func TestMergedProgramsCountEveryIO(t *testing.T) {
	bpftest.RequireRoot(t)
	for _, own := range []uint32{0, 1} {
		t.Run("own_stamps="+strconv.Itoa(int(own)), func(t *testing.T) {
			ownStamps = own
			defer func() { ownStamps = 0 }()
			loop := bpftest.NewLoop(t, 64<<20)
			latency, err := Acquire(Latency)
			if err != nil {
				t.Fatalf("acquire latency: %v", err)
			}
			defer latency.Release()
			mrc, err := Acquire(MRC)
			if err != nil {
				t.Fatalf("acquire block sampling: %v", err)
			}
			defer mrc.Release()
			const threshold = ^uint64(0) / 8
			samples := collectBlockSamples(t, mrc, loop.Dev, threshold)
			lostBefore := blockSamplesLost(t, mrc)
			wantIssue := own == 1 || !kernelStampsEveryDisk()
			if issueAttached() != wantIssue {
				t.Errorf("issue program attached: %v, want %v (kernel stamps every disk here: %v)", issueAttached(), wantIssue, kernelStampsEveryDisk())
			}

			account := newIOAccount(t, latency, loop.Dev)
			histBefore, statBefore := readLatency(t, latency, loop.Dev), readDiskStat(t, loop.Name)
			unstampedBefore := readUnstamped(t, latency)
			const reads, writes, size = 300, 200, 8192
			buf := bpftest.AlignedBuffer(t, size)
			loop.WriteDirect(t, buf, 1<<20, writes)
			loop.ReadDirect(t, buf, 1<<20, reads)
			statAfter := readDiskStat(t, loop.Name)
			histAfter, untimed := account.read()
			unstamped := readUnstamped(t, latency) - unstampedBefore

			// Every I/O the device completed is in the histograms or in the untimed count the
			// agent reports: on the programs' own table two CPUs issuing requests whose slots
			// collide in the same instant can both claim one (plain stores, see blockio.bpf.c;
			// seen twice on a busy machine, one read of the 500: unstamped), and with either
			// stamp the kernel does not run the programs for every completion (on a busy host
			// some ran in softirq on top of other processes' threads and reached only the
			// tracepoint's ftrace event).
			gotReads, gotWrites := histAfter[bpf.OpRead]-histBefore[bpf.OpRead], histAfter[bpf.OpWrite]-histBefore[bpf.OpWrite]
			wantReads, wantWrites := statAfter.reads-statBefore.reads, statAfter.writes-statBefore.writes
			if gotReads+untimed[bpf.OpRead] != wantReads || gotWrites+untimed[bpf.OpWrite] != wantWrites ||
				wantReads < reads || wantWrites < writes {
				t.Errorf("histograms hold %d reads and %d writes and %d and %d are untimed, the device completed %d and %d (the test issued %d and %d; %d completions unstamped meanwhile)",
					gotReads, gotWrites, untimed[bpf.OpRead], untimed[bpf.OpWrite], wantReads, wantWrites, reads, writes, unstamped)
			}
			if n := untimed[bpf.OpRead] + untimed[bpf.OpWrite]; n > 0 {
				t.Logf("%d I/Os untimed (%d unstamped), all counted", n, unstamped)
			}
			if statAfter.sectors-statBefore.sectors != (reads+writes)*size/512 {
				t.Fatalf("something else used %s meanwhile: %d sectors moved", loop.Name, statAfter.sectors-statBefore.sectors)
			}
			// Both passes touch blocks 256 and 257 (8 KiB at 1 MiB) once per I/O. An untimed I/O
			// may be one no program ran for, and then it was not sampled either.
			var perIO uint64
			for block := uint64(1<<20) / 4096; block < (1<<20+size)/4096; block++ {
				if mrcpkg.BlockKeyHash(uint32(loop.Dev), block) < threshold {
					perIO++
				}
			}
			// The ring is shared with every disk's samples: other processes' I/O on a busy host
			// can fill it, and what the kernel could not hand over it counts as lost.
			want, unseen := (reads+writes)*perIO, (untimed[bpf.OpRead]+untimed[bpf.OpWrite])*perIO
			got := samples(want)
			if lost := blockSamplesLost(t, mrc) - lostBefore; got > want || got+unseen+lost < want {
				t.Errorf("%d block samples of %s, want %d (the accesses whose hash is below the threshold; %d I/Os untimed, %d samples of any disk lost)",
					got, loop.Name, want, untimed[bpf.OpRead]+untimed[bpf.OpWrite], lost)
			}
			if n, err := latency.Untracked(); err != nil || n != 0 {
				t.Errorf("untracked I/Os %d (%v): the issue-time table had no room on an idle test device", n, err)
			}
		})
	}
}

func issueAttached() bool {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	_, ok := shared.links[shared.objs.BlockRqIssue]
	return ok
}

// TestIssueProgramAttachedWhenCompletionsGoUnstamped loads the programs as on a host whose disks
// the kernel stamps (no issue program), while the completions ignore the kernel's stamps, as they
// would on a disk without queue statistics: those I/Os are not timed until KeepTiming sees the
// unstamped completions and attaches the issue program; from then on every I/O is timed.
func TestIssueProgramAttachedWhenCompletionsGoUnstamped(t *testing.T) {
	bpftest.RequireRoot(t)
	ownStamps, assumeKernelStamps = 1, true
	defer func() { ownStamps, assumeKernelStamps = 0, false }()
	loop := bpftest.NewLoop(t, 16<<20)
	latency, err := Acquire(Latency)
	if err != nil {
		t.Fatalf("acquire latency: %v", err)
	}
	defer latency.Release()
	if issueAttached() {
		t.Fatal("issue program attached on a host taken to be stamped by the kernel")
	}
	// These programs ignore the kernel's stamps on every disk, so any other disk's completion
	// (other processes' I/O on a busy host) counts as unstamped too: KeepTiming may attach only
	// once one did, and the state it left is undone before this device's writes.
	if err := latency.KeepTiming(); err != nil {
		t.Fatal(err)
	}
	if attached := issueAttached(); attached && readUnstamped(t, latency) == 0 {
		t.Fatal("KeepTiming attached the issue program before any completion went unstamped")
	}
	stopStamping(t, latency)
	buf := bpftest.AlignedBuffer(t, 4096)
	account := newIOAccount(t, latency, loop.Dev)
	before := readLatency(t, latency, loop.Dev)
	loop.WriteDirect(t, buf, 0, 50)
	after, untimed := account.read()
	if got := after[bpf.OpWrite] - before[bpf.OpWrite]; got != 0 || untimed[bpf.OpWrite] < 50 {
		t.Fatalf("%d writes timed without any issue time, %d untimed; want 0 and the 50 writes", got, untimed[bpf.OpWrite])
	}
	if n, err := sumPerCPU(latency.objs.Unstamped); err != nil || n < 50 {
		t.Fatalf("unstamped completions %d (%v), want at least the 50 writes", n, err)
	}
	if err := latency.KeepTiming(); err != nil || !issueAttached() {
		t.Fatalf("KeepTiming after unstamped completions: attached %v (%v)", issueAttached(), err)
	}
	before, statBefore := readLatency(t, latency, loop.Dev), readDiskStat(t, loop.Name)
	loop.WriteDirect(t, buf, 0, 60)
	loop.ReadDirect(t, buf, 0, 40)
	statAfter := readDiskStat(t, loop.Name)
	after, untimed = account.read()
	gotReads, gotWrites := after[bpf.OpRead]-before[bpf.OpRead], after[bpf.OpWrite]-before[bpf.OpWrite]
	if gotReads+untimed[bpf.OpRead] != statAfter.reads-statBefore.reads || gotWrites+untimed[bpf.OpWrite] != statAfter.writes-statBefore.writes ||
		statAfter.writes-statBefore.writes < 60 || statAfter.reads-statBefore.reads < 40 {
		t.Errorf("after KeepTiming: histograms hold %d reads and %d writes and %d and %d are untimed, the device completed %d and %d",
			gotReads, gotWrites, untimed[bpf.OpRead], untimed[bpf.OpWrite], statAfter.reads-statBefore.reads, statAfter.writes-statBefore.writes)
	}
}

// TestUntimedCountsCompletionsNoProgramSaw reproduces what a busy host did to the latency: the
// kernel ran block_rq_complete's ftrace event for some completions but none of its BPF programs
// (those run in softirq on top of certain other processes' threads, with no recursion miss
// counted), so those reads were in the disk's count and nowhere in the histograms. Here the
// completion program is detached while 30 of 100 reads complete: the 30 must be in the untimed
// count the agent reports, and histograms plus untimed must be the disk's count.
func TestUntimedCountsCompletionsNoProgramSaw(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 16<<20)
	latency, err := Acquire(Latency)
	if err != nil {
		t.Fatalf("acquire latency: %v", err)
	}
	defer latency.Release()
	buf := bpftest.AlignedBuffer(t, 4096)
	account := newIOAccount(t, latency, loop.Dev)
	before, statBefore := readLatency(t, latency, loop.Dev), readDiskStat(t, loop.Name)
	loop.ReadDirect(t, buf, 0, 50)
	setCompletionProgram(t, false)
	loop.ReadDirect(t, buf, 50*4096, 30)
	setCompletionProgram(t, true)
	loop.ReadDirect(t, buf, 80*4096, 20)
	statAfter := readDiskStat(t, loop.Name)
	after, untimed := account.read()
	got, want := after[bpf.OpRead]-before[bpf.OpRead], statAfter.reads-statBefore.reads
	if want < 100 || got+untimed[bpf.OpRead] != want || untimed[bpf.OpRead] < 30 {
		t.Errorf("histograms hold %d reads and %d are untimed, the device completed %d; want the 30 the program missed untimed", got, untimed[bpf.OpRead], want)
	}
	if _, again := account.read(); again[bpf.OpRead] != 0 {
		t.Errorf("%d untimed reads reported twice", again[bpf.OpRead])
	}
}

// setCompletionProgram detaches or attaches block_rq_complete, as the kernel skipping it or not.
func setCompletionProgram(t *testing.T, attached bool) {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if attached {
		if err := apply(); err != nil {
			t.Fatal(err)
		}
		return
	}
	l, ok := shared.links[shared.objs.BlockRqComplete]
	if !ok {
		t.Fatal("block_rq_complete is not attached")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	delete(shared.links, shared.objs.BlockRqComplete)
}

// stopStamping detaches the issue program and zeroes the unstamped count, as just after a load
// that left the issue program out.
func stopStamping(t *testing.T, u *User) {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.stampIssues = false
	if err := apply(); err != nil {
		t.Fatal(err)
	}
	if err := u.objs.Unstamped.Update(uint32(0), make([]uint64, len(mustPerCPU(t, u))), 0); err != nil {
		t.Fatal(err)
	}
}

func mustPerCPU(t *testing.T, u *User) []uint64 {
	t.Helper()
	var perCPU []uint64
	if err := u.objs.Unstamped.Lookup(uint32(0), &perCPU); err != nil {
		t.Fatal(err)
	}
	return perCPU
}

func TestEveryQueueKeepsStats(t *testing.T) {
	dir := t.TempDir()
	disk := func(name string, mq bool, wbt string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name, "queue"), 0o755); err != nil {
			t.Fatal(err)
		}
		if mq {
			if err := os.Mkdir(filepath.Join(dir, name, "mq"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if wbt != "" {
			if err := os.WriteFile(filepath.Join(dir, name, "queue", "wbt_lat_usec"), []byte(wbt), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	disk("vda", true, "75000\n")
	disk("dm-0", false, "") // bio-based: no requests, no say
	if !everyQueueKeepsStats(dir) {
		t.Fatal("a throttled request-based disk and a bio-based one: want stamped")
	}
	disk("sdb", true, "0\n") // writeback throttling off
	if everyQueueKeepsStats(dir) {
		t.Fatal("a request-based disk with writeback throttling off: want not stamped")
	}
	if err := os.RemoveAll(filepath.Join(dir, "sdb")); err != nil {
		t.Fatal(err)
	}
	disk("nvme0n1", true, "") // a kernel without writeback throttling: the file is missing
	if everyQueueKeepsStats(dir) {
		t.Fatal("a request-based disk without wbt_lat_usec: want not stamped")
	}
	if everyQueueKeepsStats(filepath.Join(dir, "missing")) {
		t.Fatal("no /sys/block: want not stamped")
	}
}

// ioAccount reads dev's I/Os as the latency collector does: the disk's own counts, then the
// histograms, with Untimed finding the I/Os the disk completed that the histograms lack.
type ioAccount struct {
	t       *testing.T
	u       *User
	dev     bpf.Dev
	untimed Untimed
}

// newIOAccount takes the first reading, the base of the untimed counts.
func newIOAccount(t *testing.T, u *User, dev bpf.Dev) *ioAccount {
	a := &ioAccount{t: t, u: u, dev: dev}
	a.read()
	return a
}

// read returns dev's cumulative histogram counts per operation and its untimed I/Os since the
// last read.
func (a *ioAccount) read() (timed, untimed map[bpf.Op]uint64) {
	a.t.Helper()
	completed := map[DiskOp]uint64{}
	for key, n := range Completed("/sys/block") {
		if key.Dev == a.dev {
			completed[key] = n
		}
	}
	timed = readLatency(a.t, a.u, a.dev)
	counts := map[DiskOp]uint64{}
	for op, n := range timed {
		counts[DiskOp{a.dev, op}] = n
	}
	untimed = map[bpf.Op]uint64{}
	for key, n := range a.untimed.Add(completed, counts) {
		untimed[key.Op] = n
	}
	return timed, untimed
}

func readUnstamped(t *testing.T, u *User) uint64 {
	t.Helper()
	n, err := sumPerCPU(u.objs.Unstamped)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readLatency sums dev's histograms per operation.
func readLatency(t *testing.T, u *User, dev bpf.Dev) map[bpf.Op]uint64 {
	t.Helper()
	out := map[bpf.Op]uint64{}
	err := u.EachLatency(func(d uint32, op bpf.Op, h *LatencyHist) {
		if bpf.Dev(d) != dev {
			return
		}
		for _, n := range h.Slots {
			out[op] += n
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type diskStat struct{ reads, writes, sectors uint64 }

// readDiskStat reads the completed reads and writes and the sectors read and written.
func readDiskStat(t *testing.T, name string) diskStat {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("/sys/block", name, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(raw))
	n := func(i int) uint64 {
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return diskStat{reads: n(0), writes: n(4), sectors: n(2) + n(6)}
}

// blockSamplesLost is the number of block samples the kernel could not put in the ring.
func blockSamplesLost(t *testing.T, u *User) uint64 {
	t.Helper()
	var perCPU []uint64
	if err := u.objs.MrcLost.Lookup(uint32(1), &perCPU); err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range perCPU {
		n += c
	}
	return n
}

// collectBlockSamples sets the block stream's threshold and counts dev's samples from now on,
// reading as they come so the host's other disks cannot fill the ring; the returned function
// waits until want samples arrived (or none came for 5 s) and returns how many did.
func collectBlockSamples(t *testing.T, u *User, dev bpf.Dev, threshold uint64) func(want uint64) uint64 {
	t.Helper()
	reader, err := ringbuf.NewReader(u.objs.MrcSamples)
	if err != nil {
		t.Fatal(err)
	}
	counted := make(chan struct{}, 1<<16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var rec ringbuf.Record
		for {
			// The programs hand samples over without waking the reader until the ring is half
			// full (spindle_mrc.h), so poll as the agent does: a reader waiting for a wake-up
			// got 122 of 500 samples once, none lost.
			reader.SetDeadline(time.Now().Add(50 * time.Millisecond))
			if err := reader.ReadInto(&rec); errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			} else if err != nil {
				return // closed
			}
			// struct mrc_sample: hash, ino, index (u64), dev, stream (u32)
			raw := rec.RawSample
			if bpf.Dev(binary.NativeEndian.Uint32(raw[24:])) == dev && binary.NativeEndian.Uint32(raw[28:]) == 1 {
				counted <- struct{}{}
			}
		}
	}()
	t.Cleanup(func() { reader.Close(); <-done })
	if err := u.objs.MrcThresholds.Update(uint32(1), threshold, 0); err != nil {
		t.Fatal(err)
	}
	return func(want uint64) uint64 {
		var n uint64
		for n < want {
			select {
			case <-counted:
				n++
			case <-time.After(5 * time.Second):
				return n
			}
		}
		return n
	}
}

// TestLatencyOfDisksThatShareASlot loads the programs with one histogram slot for every disk, so
// that of two loop devices at most one gets the per-CPU array's entry on a CPU and the other's
// completions go to the overflow map: each device's histograms must still hold exactly the I/Os
// the device completed.
func TestLatencyOfDisksThatShareASlot(t *testing.T) {
	bpftest.RequireRoot(t)
	mask := uint32(0)
	latencyDiskMask = &mask
	defer func() { latencyDiskMask = nil }()
	loops := []*bpftest.Loop{bpftest.NewLoop(t, 16<<20), bpftest.NewLoop(t, 16<<20)}
	latency, err := Acquire(Latency)
	if err != nil {
		t.Fatalf("acquire latency: %v", err)
	}
	defer latency.Release()
	buf := bpftest.AlignedBuffer(t, 4096)
	accounts := []*ioAccount{newIOAccount(t, latency, loops[0].Dev), newIOAccount(t, latency, loops[1].Dev)}
	for round := range 2 {
		for i, loop := range loops {
			before, statBefore := readLatency(t, latency, loop.Dev), readDiskStat(t, loop.Name)
			loop.WriteDirect(t, buf, 0, 50+10*i)
			loop.ReadDirect(t, buf, 0, 30+10*i)
			statAfter := readDiskStat(t, loop.Name)
			after, untimed := accounts[i].read()
			gotReads, gotWrites := after[bpf.OpRead]-before[bpf.OpRead], after[bpf.OpWrite]-before[bpf.OpWrite]
			// The kernel may not run the programs for a completion on a busy host (see
			// TestMergedProgramsCountEveryIO): such an I/O must be in the untimed count.
			if gotReads+untimed[bpf.OpRead] != statAfter.reads-statBefore.reads || gotWrites+untimed[bpf.OpWrite] != statAfter.writes-statBefore.writes ||
				statAfter.writes-statBefore.writes < uint64(50+10*i) {
				t.Errorf("round %d, %s: histograms hold %d reads and %d writes and %d and %d are untimed, the device completed %d and %d",
					round, loop.Name, gotReads, gotWrites, untimed[bpf.OpRead], untimed[bpf.OpWrite], statAfter.reads-statBefore.reads, statAfter.writes-statBefore.writes)
			}
		}
	}
	overflow := 0
	var key blockioLatencyKey
	var perCPU []LatencyHist
	for it := latency.objs.LatencyOverflow.Iterate(); it.Next(&key, &perCPU); {
		overflow++
	}
	if overflow == 0 {
		t.Error("two disks on one slot but nothing in the overflow map: the collision path was not taken")
	}
}

// TestLatencyWithoutBlockSampling loads the programs the way kernels that refuse the sampling
// part get them (bpf_loop and ring buffers left out): latency still counts every I/O, and asking
// for the MRC block stream says it is unsupported instead of failing the others.
func TestLatencyWithoutBlockSampling(t *testing.T) {
	bpftest.RequireRoot(t)
	withoutMRC, ownStamps = true, 1
	defer func() { withoutMRC, ownStamps = false, 0 }()
	loop := bpftest.NewLoop(t, 64<<20)
	latency, err := Acquire(Latency)
	if err != nil {
		t.Fatalf("acquire latency: %v", err)
	}
	defer latency.Release()
	if _, err := Acquire(MRC); !errors.Is(err, bpf.ErrUnsupported) {
		t.Fatalf("acquire block sampling: %v, want ErrUnsupported", err)
	}
	account := newIOAccount(t, latency, loop.Dev)
	before, statBefore := readLatency(t, latency, loop.Dev), readDiskStat(t, loop.Name)
	loop.WriteDirect(t, bpftest.AlignedBuffer(t, 4096), 0, 100)
	statAfter := readDiskStat(t, loop.Name)
	after, untimed := account.read()
	if got, want := after[bpf.OpWrite]-before[bpf.OpWrite], statAfter.writes-statBefore.writes; got+untimed[bpf.OpWrite] != want || want < 100 {
		t.Errorf("%d writes in the histograms and %d untimed, the device completed %d (the test issued 100)", got, untimed[bpf.OpWrite], want)
	}
}
