package export

import (
	"slices"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
)

func TestWithCapabilitiesAddsAStringSlice(t *testing.T) {
	base := BaseResource(hostinfo.Info{Hostname: "db01"}, "1.2.3", "agent-1")
	res := WithCapabilities(base, []string{"ebpf.block_latency", "ebpf.page_cache"})
	set := res.Set()
	v, ok := set.Value(catalogue.ResourceCapabilities)
	if !ok || !slices.Equal(v.AsStringSlice(), []string{"ebpf.block_latency", "ebpf.page_cache"}) {
		t.Fatalf("capabilities attribute %v", v)
	}
	if _, ok := set.Value("host.name"); !ok {
		t.Fatal("base attributes lost")
	}
	empty := WithCapabilities(base, []string{})
	emptySet := empty.Set()
	if v, ok := emptySet.Value(catalogue.ResourceCapabilities); !ok || len(v.AsStringSlice()) != 0 {
		t.Fatalf("with nothing available the attribute is an empty list, got %v", v)
	}
}
