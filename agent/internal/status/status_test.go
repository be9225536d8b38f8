package status

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

func sample(now time.Time) File {
	return File{AgentVersion: "0.1.0", PID: 42, UpdatedAt: now.Add(-2 * time.Second), IntervalSeconds: 10,
		Gateway: "http://127.0.0.1:4318", AgentID: "a1", ServerID: "s1", LastCollection: now.Add(-2 * time.Second),
		Delivery:   forward.Status{LastDelivery: now.Add(-time.Second), LastDeliveredSeq: 7},
		Spool:      spool.Stats{Batches: 1, Bytes: 2048, MaxBytes: 256 << 20},
		Collectors: []Collector{{Name: "diskstats", State: collector.StateOK}, {Name: "meminfo", State: collector.StateOK}},
		Disks:      []collector.DiskRates{{Device: "sda", ReadIOPS: 60, UtilisationPercent: 70}},
	}
}

func TestWriteReadRender(t *testing.T) {
	now := time.Now()
	path := filepath.Join(t.TempDir(), "status.json")
	if err := Write(path, sample(now)); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Render(&out, back, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Status:", "healthy", "batch 7", "1 batches, 2.0 KiB of 256.0 MiB", "diskstats ok", "sda", "60.0", "70.0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAssess(t *testing.T) {
	now := time.Now()
	stale := sample(now)
	stale.UpdatedAt = now.Add(-time.Minute)
	if h, hints := Assess(stale, now); h != Stale || !strings.Contains(hints[0], "systemctl status") {
		t.Errorf("stale: %s %v", h, hints)
	}
	unauth := sample(now)
	unauth.Delivery.Unauthenticated = true
	if h, hints := Assess(unauth, now); h != Unauthorised || !strings.Contains(hints[0], "spindle-agent enroll --token") {
		t.Errorf("unauthenticated: %s %v", h, hints)
	}
	failing := sample(now)
	failing.Delivery.FailedAttempts, failing.Delivery.LastError = 3, "gateway answered 503"
	failing.Collectors[0] = Collector{Name: "diskstats", State: collector.StateError, Error: "boom"}
	if h, hints := Assess(failing, now); h != Degraded || len(hints) != 2 {
		t.Errorf("degraded: %s %v", h, hints)
	}
}

func TestReadMissingSaysHowToStart(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "status.json"))
	if !errors.Is(err, ErrNeverRan) || !strings.Contains(err.Error(), "spindle-agent run") {
		t.Fatalf("%v", err)
	}
}
