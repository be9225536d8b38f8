package etw

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blocklatency"
)

func TestSlotMatchesTheEBPFBuckets(t *testing.T) {
	bounds := blocklatency.BoundsMicros()
	cases := map[uint64]int{0: 0, 1: 0, 1000: 0, 1001: 1, 2000: 1, 2001: 2, 150_000: 8, 1 << 40: blocklatency.Slots - 1}
	for ns, want := range cases {
		if got := Slot(ns); got != want {
			t.Errorf("Slot(%d ns) = %d, want %d", ns, got, want)
		}
	}
	// Every bound lands in its own slot and one nanosecond more in the next: upper-inclusive,
	// as OTLP explicit buckets and the eBPF program count.
	for i, b := range bounds {
		ns := uint64(b * 1000)
		if Slot(ns) != i || Slot(ns+1) != i+1 {
			t.Errorf("bound %v us: slots %d and %d, want %d and %d", b, Slot(ns), Slot(ns+1), i, i+1)
		}
	}
}

// The fixture's events counted at 10 MHz: disk 0 reads of 150 us and 1 us, a write of 2.5 ms, a
// flush of 8 ms; disk 1 a write of 70 s (the last bucket); an initiation event ignored.
func TestHistogramsFromFixture(t *testing.T) {
	f, err := os.Open("testdata/diskio-events")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := NewHistograms(10_000_000)
	scanner := bufio.NewScanner(f)
	ignored := 0
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		opcode, payloadHex, _ := strings.Cut(line, "\t")
		op, _ := strconv.Atoi(opcode)
		payload, err := hex.DecodeString(payloadHex)
		if err != nil {
			t.Fatal(err)
		}
		e, ok, err := ParseDiskEvent(uint8(op), payload)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			ignored++
			continue
		}
		h.Add(e)
	}
	if ignored != 1 {
		t.Fatalf("%d events ignored, want 1 (the initiation event)", ignored)
	}
	got := h.Snapshot()
	check := func(k Key, slots map[int]uint64, sumNanos uint64) {
		t.Helper()
		hist := got[k]
		for i, c := range hist.Counts {
			if c != slots[i] {
				t.Errorf("%+v slot %d: %d, want %d", k, i, c, slots[i])
			}
		}
		if hist.SumNanos != sumNanos {
			t.Errorf("%+v sum %d ns, want %d", k, hist.SumNanos, sumNanos)
		}
	}
	check(Key{0, bpf.OpRead}, map[int]uint64{8: 1, 0: 1}, 150_000+1_000)
	check(Key{0, bpf.OpWrite}, map[int]uint64{12: 1}, 2_500_000)
	check(Key{0, bpf.OpFlush}, map[int]uint64{13: 1}, 8_000_000)
	check(Key{1, bpf.OpWrite}, map[int]uint64{blocklatency.Slots - 1: 1}, 70_000_000_000)
}

func TestParseDiskEventRejectsShortPayload(t *testing.T) {
	if _, _, err := ParseDiskEvent(opcodeRead, make([]byte, 40)); err == nil {
		t.Fatal("a read payload without its response time must be an error")
	}
	if _, _, err := ParseDiskEvent(opcodeFlush, make([]byte, 12)); err == nil {
		t.Fatal("a flush payload without its response time must be an error")
	}
}

func TestTicksToNanos(t *testing.T) {
	if got := ticksToNanos(3, 3_579_545); got != 838 {
		t.Errorf("3 ticks of the ACPI PM timer = %d ns, want 838", got)
	}
	if got := ticksToNanos(^uint64(0), 1); got != ^uint64(0) {
		t.Errorf("overflow must saturate, got %d", got)
	}
}
