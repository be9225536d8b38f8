package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Sequence hands out batch sequence numbers (the spindle.batch.seq resource attribute):
// strictly increasing, persisted before use so a restart never reuses one. The gateway
// acknowledges a sequence at or below its high-water mark without writing it again, which
// is what makes replays harmless.
type Sequence struct {
	path       string
	mu         sync.Mutex
	last       uint64
	persistErr error // the last write of the file that failed; nil once one succeeds
}

// OpenSequence loads the last used number from path; floor (for example the newest batch
// still spooled) raises it if the file was lost.
func OpenSequence(path string, floor uint64) (*Sequence, error) {
	last, err := readSequence(path)
	if err != nil {
		return nil, err
	}
	return &Sequence{path: path, last: max(last, floor)}, nil
}

// Next persists and returns the next number. When the disk refuses the file (full,
// read-only) the number is still handed out, so a full disk does not cost the interval, and
// the file catches up at the next write that succeeds (PersistError says it is behind). Only a
// crash in between can reuse numbers, and then the gateway's mark (X-Spindle-Batch-Hwm) lifts
// the sequence past them at the first delivery: one interval lost instead of every one the
// disk stayed full.
func (s *Sequence) Next() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.last + 1
	s.persistErr = writeSequence(s.path, next)
	s.last = next
	return next, nil
}

// PersistError is the reason the sequence file lags behind the numbers handed out, or nil.
func (s *Sequence) PersistError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.persistErr
}

// Raise makes the next number at least atLeast+1 (persisted), and reports whether it moved.
// The forwarder calls it with the gateway's high-water mark (X-Spindle-Batch-Hwm), so an agent
// whose state went back (wiped state directory, restored snapshot, cloned image) continues
// above the numbers the gateway would take for replays.
func (s *Sequence) Raise(atLeast uint64) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last >= atLeast {
		return false, nil
	}
	s.persistErr = writeSequence(s.path, atLeast)
	s.last = atLeast
	return true, s.persistErr
}

// Last returns the last number handed out (0 if none).
func (s *Sequence) Last() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// RaiseSequence makes the sequence at path continue above atLeast. Enrolment calls it with
// the gateway's high-water mark, so a reinstalled agent does not send numbers the gateway
// would take for replays and silently skip.
func RaiseSequence(path string, atLeast uint64) error {
	last, err := readSequence(path)
	if err != nil {
		return err
	}
	if last >= atLeast {
		return nil
	}
	return writeSequence(path, atLeast)
}

func readSequence(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read batch sequence: %w", err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("batch sequence file %s is corrupt (%w): remove it; the agent continues above the spool and the gateway's mark after re-enrolment", path, err)
	}
	return n, nil
}

func writeSequence(path string, n uint64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	if err := writeDurably(path+tmpSuffix, path, []byte(strconv.FormatUint(n, 10)+"\n")); err != nil {
		return fmt.Errorf("persist batch sequence: %w", err)
	}
	return nil
}
