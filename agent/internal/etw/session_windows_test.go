package etw

import (
	"errors"
	"testing"
)

// The real session: on Windows as an administrator it starts and stops; otherwise (no
// privilege, the kernel logger in use, or Wine, which has no kernel logger) Start must fail
// with ErrUnsupported and a reason, which the agent reports as the missing capability.
func TestStartOrSayWhy(t *testing.T) {
	s, err := Start()
	if err != nil {
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported with the reason, got %v", err)
		}
		t.Logf("no kernel disk I/O session here: %v", err)
		return
	}
	if s.Histograms() == nil {
		t.Fatal("a started session has histograms")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
