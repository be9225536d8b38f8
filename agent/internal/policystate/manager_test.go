package policystate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// recorder is an Applier that remembers every interval it was asked to apply and can be told
// to refuse or fail.
type recorder struct {
	name    string
	applied []int64
	refuse  error
	fail    func(p policy.Policy) error
}

func (r *recorder) Name() string              { return r.name }
func (r *recorder) Check(policy.Policy) error { return r.refuse }
func (r *recorder) Apply(_ context.Context, p policy.Policy) error {
	if r.fail != nil {
		if err := r.fail(p); err != nil {
			return err
		}
	}
	r.applied = append(r.applied, p.Telemetry.IntervalSeconds)
	return nil
}

func doc(interval int) []byte {
	return []byte(`{"schemaVersion":1,"telemetry":{"intervalSeconds":` + itoa(interval) + `}}`)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestAppliesSavesAndRestoresTheLastKnownGoodPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var interval time.Duration
	telemetry := &TelemetryApplier{SetInterval: func(d time.Duration) { interval = d }, EBPF: func() EBPFState { return EBPFState{} }}
	m := NewManager(path, telemetry)
	if err := m.Apply(context.Background(), doc(30), "hash-30"); err != nil {
		t.Fatal(err)
	}
	if interval != 30*time.Second || m.Current().Telemetry.IntervalSeconds != 30 {
		t.Fatalf("interval %s, policy %d; want 30 s", interval, m.Current().Telemetry.IntervalSeconds)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("policy.json: %v, mode %v; want 0600", err, info.Mode().Perm())
	}

	// A restart: a fresh manager restores the policy before any gateway is reachable.
	interval = 0
	restarted := NewManager(path, telemetry)
	ok, err := restarted.Restore(context.Background())
	if err != nil || !ok {
		t.Fatalf("restore: %v %v", ok, err)
	}
	if interval != 30*time.Second || restarted.State().Hash != "hash-30" || restarted.State().AppliedAt.IsZero() {
		t.Fatalf("restored interval %s, state %+v", interval, restarted.State())
	}
	// The same policy again changes nothing.
	interval = 0
	if err := restarted.Apply(context.Background(), doc(30), "hash-30"); err != nil || interval != 0 {
		t.Fatalf("re-applying the policy in force: %v, interval set to %s", err, interval)
	}
}

func TestRefusesInvalidOrUnsupportedPoliciesAndKeepsThePrevious(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var interval time.Duration
	telemetry := &TelemetryApplier{SetInterval: func(d time.Duration) { interval = d },
		EBPF: func() EBPFState {
			return EBPFState{Missing: "ebpf.block_latency: switched off in agent.yaml (ebpf: off)"}
		}}
	m := NewManager(path, telemetry, NewReadCacheApplier(nil))
	if err := m.Apply(context.Background(), doc(20), "good"); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		document []byte
		want     string
	}{
		"bad JSON":   {[]byte(`{"schemaVersion":`), "invalid policy: policy: is not valid JSON"},
		"rule":       {[]byte(`{"schemaVersion":1,"readCache":{"enabled":true}}`), "readCache.include"},
		"ebpf on":    {[]byte(`{"schemaVersion":1,"telemetry":{"ebpf":"on"}}`), `telemetry: telemetry.ebpf is "on" but eBPF cannot be used on this server (ebpf.block_latency: switched off in agent.yaml (ebpf: off)); set it to "auto"`},
		"read cache": {[]byte(`{"schemaVersion":1,"readCache":{"enabled":true,"include":["/srv/**"]}}`), "read cache: "},
		"scan":       {[]byte(`{"schemaVersion":1,"telemetry":{"fragmentationScan":{"paths":["/srv"]}}}`), "no fragmentation scanner"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			interval = 0
			err := m.Apply(context.Background(), c.document, "bad-"+name)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "the agent refused the policy, the previous one stays in force: ") {
				t.Fatalf("got %v, want a refusal containing %q", err, c.want)
			}
			if interval != 0 || m.Current().Telemetry.IntervalSeconds != 20 || m.State().Hash != "good" {
				t.Fatalf("the refused policy changed something: interval %s, state %+v", interval, m.State())
			}
			if r := m.State().Refused; r == nil || r.Hash != "bad-"+name {
				t.Fatalf("refusal not kept for status: %+v", r)
			}
			lkg, _, _ := Load(path)
			if lkg.Hash != "good" {
				t.Fatalf("last known good on disk is %q", lkg.Hash)
			}
		})
	}
}

func TestRollsBackAppliersWhenALaterOneFails(t *testing.T) {
	first := &recorder{name: "first"}
	second := &recorder{name: "second", fail: func(p policy.Policy) error {
		if p.Telemetry.IntervalSeconds == 60 {
			return errors.New("device busy")
		}
		return nil
	}}
	m := NewManager(filepath.Join(t.TempDir(), FileName), first, second)
	if err := m.Apply(context.Background(), doc(15), "h15"); err != nil {
		t.Fatal(err)
	}
	err := m.Apply(context.Background(), doc(60), "h60")
	if err == nil || !strings.Contains(err.Error(), "second could not be applied: device busy") {
		t.Fatalf("got %v", err)
	}
	if got := first.applied; len(got) != 3 || got[0] != 15 || got[1] != 60 || got[2] != 15 {
		t.Fatalf("first applier saw %v, want [15 60 15] (applied, then rolled back)", got)
	}
	if m.State().Hash != "h15" || m.Current().Telemetry.IntervalSeconds != 15 {
		t.Fatalf("state after rollback: %+v", m.State())
	}

	// A rollback that fails too is reported, with what to do.
	first.fail = func(p policy.Policy) error {
		if p.Telemetry.IntervalSeconds == 15 {
			return errors.New("stuck")
		}
		return nil
	}
	err = m.Apply(context.Background(), doc(60), "h60")
	if err == nil || !strings.Contains(err.Error(), "rolling first back to the previous policy also failed, restart the agent") {
		t.Fatalf("got %v", err)
	}
}

func TestDamagedLastKnownGoodSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewManager(path).Restore(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is damaged (delete it; the gateway sends the policy again)") {
		t.Fatalf("got %v", err)
	}
	ok, err := NewManager(filepath.Join(t.TempDir(), FileName)).Restore(context.Background())
	if ok || err != nil {
		t.Fatalf("no file: ok=%v err=%v, want nothing to restore", ok, err)
	}
}
