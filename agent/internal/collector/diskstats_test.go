package collector

import (
	"math"
	"strings"
	"testing"
)

func TestCounterDelta(t *testing.T) {
	cases := []struct {
		name      string
		prev, cur uint64
		want      uint64
		ok        bool
	}{
		{"increase", 10, 25, 15, true},
		{"unchanged", 7, 7, 0, true},
		{"32-bit wrap", math.MaxUint32 - 5, 10, 16, true},
		{"reset below 32 bits", 5000, 10, 0, false},
		{"reset of a 64-bit counter", 1 << 40, 3, 0, false},
	}
	for _, tc := range cases {
		got, ok := counterDelta(tc.prev, tc.cur)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: counterDelta(%d, %d) = %d, %v; want %d, %v", tc.name, tc.prev, tc.cur, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseDiskstatsRejectsGarbage(t *testing.T) {
	_, err := parseDiskstats(strings.NewReader("8 0 sda 1 2 x 4 5 6 7 8 9 10 11\n"))
	if err == nil || !strings.Contains(err.Error(), "sda") {
		t.Fatalf("want an error naming the device, got %v", err)
	}
}

func TestParseDiskstatsKernelVariants(t *testing.T) {
	in := "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n" + // 4.17 and older: 11 fields
		"8 1 sda1 1 2 3 4\n" + // 2.6 partitions: skipped
		"259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n" // 5.5+: 17 fields
	got, err := parseDiskstats(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Device != "sda" || got[1].Device != "nvme0n1" || got[1].WeightedIOTimeMs != 11 {
		t.Fatalf("unexpected parse: %+v", got)
	}
}
