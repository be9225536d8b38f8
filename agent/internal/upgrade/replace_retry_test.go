package upgrade

import (
	"errors"
	"testing"
	"time"
)

var errBusy = errors.New("in use by another process")

func TestAReplacementIsRetriedWhileTheFileIsBusy(t *testing.T) {
	calls := 0
	err := retryWhile(func() error {
		calls++
		if calls < 3 {
			return errBusy
		}
		return nil
	}, func(err error) bool { return errors.Is(err, errBusy) }, time.Minute)
	if err != nil || calls != 3 {
		t.Fatalf("got %v after %d writes, want success at the third", err, calls)
	}
}

func TestOtherFailuresAndTheBoundEndTheRetries(t *testing.T) {
	other := errors.New("disk full")
	calls := 0
	if err := retryWhile(func() error { calls++; return other }, func(err error) bool { return errors.Is(err, errBusy) }, time.Minute); !errors.Is(err, other) || calls != 1 {
		t.Fatalf("a lasting failure: got %v after %d writes", err, calls)
	}
	calls = 0
	if err := retryWhile(func() error { calls++; return errBusy }, func(error) bool { return true }, 50*time.Millisecond); !errors.Is(err, errBusy) || calls < 2 {
		t.Fatalf("past the bound: got %v after %d writes", err, calls)
	}
}
