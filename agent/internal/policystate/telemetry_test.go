package policystate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

const scanDocument = `{"schemaVersion":1,"telemetry":{"intervalSeconds":30,"fragmentationScan":{"paths":["/srv/pg"],"periodSeconds":900}}}`

func TestFragmentationScanReachesTheScanner(t *testing.T) {
	var got policy.FragmentationScan
	telemetry := &TelemetryApplier{SetInterval: func(time.Duration) {}, EBPF: func() EBPFState { return EBPFState{} },
		FragmentationScan: func(_ context.Context, scan policy.FragmentationScan) error { got = scan; return nil }}
	m := NewManager(filepath.Join(t.TempDir(), FileName), telemetry)
	if err := m.Apply(context.Background(), []byte(scanDocument), "scan"); err != nil {
		t.Fatal(err)
	}
	if len(got.Paths) != 1 || got.Paths[0] != "/srv/pg" || got.PeriodSeconds != 900 {
		t.Fatalf("scanner got %+v", got)
	}
}

func TestFragmentationScanRefusedWithWhyTheScannerIsOff(t *testing.T) {
	telemetry := &TelemetryApplier{SetInterval: func(time.Duration) {}, EBPF: func() EBPFState { return EBPFState{} },
		NoFragmentationScanner: "switched off in the config (collectors.fragmentation.enabled: false)"}
	m := NewManager(filepath.Join(t.TempDir(), FileName), telemetry)
	err := m.Apply(context.Background(), []byte(scanDocument), "scan")
	want := "telemetry.fragmentationScan.paths is set but this agent's fragmentation scanner is not running " +
		"(switched off in the config (collectors.fragmentation.enabled: false)); leave the paths empty for this server"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal containing %q", err, want)
	}
}
