package proofrun

import (
	"fmt"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
	{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

// ParseSize reads "1GiB", "512MiB", "10GB", "4K" or a plain byte count.
func ParseSize(s string) (int64, error) {
	text := strings.TrimSpace(s)
	multiplier := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text, multiplier = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.bytes
			break
		}
	}
	value, err := strconv.ParseFloat(text, 64)
	if err != nil || value < 0 {
		return 0, fmt.Errorf("size %q: write a number with an optional unit, e.g. 1GiB or 512MiB", s)
	}
	return int64(value * float64(multiplier)), nil
}

// ParseLoads reads load steps: "1x1,2x4,4x8" (threads x outstanding) or "1,4,8" (pgbench clients).
func ParseLoads(s string) ([]Load, error) {
	var loads []Load
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if threads, outstanding, ok := strings.Cut(part, "x"); ok {
			t, err1 := strconv.Atoi(strings.TrimSpace(threads))
			o, err2 := strconv.Atoi(strings.TrimSpace(outstanding))
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("load %q: write threads x outstanding, e.g. 4x8", part)
			}
			loads = append(loads, Load{Threads: t, Outstanding: o})
			continue
		}
		c, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("load %q: write threads x outstanding (4x8) or a client count (16)", part)
		}
		loads = append(loads, Load{Clients: c})
	}
	return loads, nil
}
