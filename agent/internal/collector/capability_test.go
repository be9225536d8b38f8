package collector

import (
	"errors"
	"fmt"
	"testing"
)

func TestEBPFLoadFailureByMode(t *testing.T) {
	cause := fmt.Errorf("%w: no BTF", errors.New("eBPF unavailable"))
	auto := newEBPFLoad("ebpf.block_split", Options{EBPF: EBPFOptions{Mode: EBPFAuto}}, cause)
	if err := auto.unavailable(); !errors.Is(err, ErrUnsupported) || !errors.Is(err, cause) {
		t.Errorf("auto: %v, want ErrUnsupported wrapping the cause", err)
	}
	on := newEBPFLoad("ebpf.block_split", Options{EBPF: EBPFOptions{Mode: EBPFOn}}, cause)
	if err := on.unavailable(); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("on: %v, want a plain error", err)
	}
	if c := on.Capability(); c.Available || c.Name != "ebpf.block_split" || c.Reason != cause.Error() {
		t.Errorf("capability %+v", c)
	}
	if ok := newEBPFLoad("ebpf.block_split", Options{}, nil); ok.unavailable() != nil || !ok.Capability().Available {
		t.Error("a loaded program must be available")
	}
}

func TestCapabilitiesOfCollectorsNotBuilt(t *testing.T) {
	caps := Capabilities(nil, func(name string) string { return name + " is off" })
	want := map[string]string{"ebpf.block_latency": "block_latency is off",
		"ebpf.block_split": "block_split is off", "ebpf.mrc": "mrc is off", "ebpf.page_cache": "page_cache is off",
		"fiemap.fragmentation": "fragmentation is off", "postgresql.statistics": "pgstats is off", "psi.pressure": "pressure is off"}
	if len(caps) != len(want) {
		t.Fatalf("capabilities %+v", caps)
	}
	for _, c := range caps {
		if c.Available || want[c.Name] != c.Reason {
			t.Errorf("%+v", c)
		}
	}
	if got := AvailableCapabilities(caps); len(got) != 0 {
		t.Errorf("available %v", got)
	}
}
