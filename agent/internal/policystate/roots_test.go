package policystate

import (
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

func TestRootsApplierRefusesPathsOutsideTheHostsRoots(t *testing.T) {
	p := policy.Default()
	p.ReadCache.Include = []string{"/srv/pg/**", "/srv/pgdata/*.db"}
	p.ReadCache.Pin = []string{"/srv/pg/base/1"}
	p.WriteOptimization.Preallocation = []policy.PreallocationRule{{Pattern: "/etc/**", ChunkBytes: 1 << 20}}
	p.WriteOptimization.Defragmentation.Include = []string{"/**/*.db"}

	if err := NewRootsApplier(nil, "/etc/spindle/agent.yaml").Check(p); err != nil {
		t.Fatalf("no roots configured must allow everything: %v", err)
	}
	err := NewRootsApplier([]string{"/srv/pg", "/var/lib/postgresql"}, "/etc/spindle/agent.yaml").Check(p)
	if err == nil {
		t.Fatal("a policy reaching /etc and / was accepted")
	}
	for _, want := range []string{
		`writeOptimization.preallocation[0].pattern "/etc/**"`,
		`writeOptimization.defragmentation.include[0] "/**/*.db"`,
		`readCache.include[1] "/srv/pgdata/*.db"`, // a sibling that shares the root's prefix
		"policy_roots in /etc/spindle/agent.yaml",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `readCache.include[0]`) || strings.Contains(err.Error(), "readCache.pin") {
		t.Errorf("paths inside the roots were refused: %v", err)
	}
	if err := NewRootsApplier([]string{"/"}, "agent.yaml").Check(p); err != nil {
		t.Fatalf("root / allows everything: %v", err)
	}
}
