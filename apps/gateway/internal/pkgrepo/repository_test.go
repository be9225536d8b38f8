package pkgrepo

import (
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// The signed metadata is built once per set of packages of its format: served from the cache
// while they are the same, rebuilt when one is added or rewritten (its SHA-256 changes), and
// never for a change to another format's packages (apt's index is not re-signed for a new .rpm).
func TestAnIndexIsRebuiltOnlyWhenItsFormatsPackagesChange(t *testing.T) {
	builds := 0
	cache := indexCache{format: "deb", build: func([]releases.Release, time.Time) (*Index, error) {
		builds++
		return newIndex(), nil
	}}
	deb := releases.File{Name: "spindle-agent_0.9.7_amd64.deb", Format: "deb", SHA256: "aa"}
	rpm := releases.File{Name: "spindle-agent-0.9.7-1.x86_64.rpm", Format: "rpm", SHA256: "bb"}
	steps := []struct {
		name   string
		served []releases.Release
		builds int
	}{
		{"first request", []releases.Release{{Version: "0.9.7", Packages: []releases.File{deb}}}, 1},
		{"same packages", []releases.Release{{Version: "0.9.7", Packages: []releases.File{deb}}}, 1},
		{"an .rpm added", []releases.Release{{Version: "0.9.7", Packages: []releases.File{deb, rpm}}}, 1},
		{"the .deb rewritten", []releases.Release{{Version: "0.9.7", Packages: []releases.File{{Name: deb.Name, Format: "deb", SHA256: "cc"}, rpm}}}, 2},
		{"a release added", []releases.Release{{Version: "0.9.7", Packages: []releases.File{deb}}, {Version: "0.9.8", Packages: []releases.File{deb}}}, 3},
	}
	var last *Index
	for _, step := range steps {
		index, err := cache.Index(step.served)
		if err != nil {
			t.Fatal(err)
		}
		if builds != step.builds {
			t.Fatalf("%s: %d builds, want %d", step.name, builds, step.builds)
		}
		if step.builds == 1 && last != nil && index != last {
			t.Fatalf("%s: a new index for the same packages", step.name)
		}
		last = index
	}
}
