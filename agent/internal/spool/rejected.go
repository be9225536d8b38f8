package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Reject moves a batch the gateway can never accept (400 malformed, 413 too large) to
// rejected/ so delivery continues with the next one, and keeps at most maxRejected files
// there (the newest: the most useful for diagnosis).
func (s *Spool) Reject(seq uint64) error {
	src := s.path(seq)
	dst := filepath.Join(s.dir, rejectedDir, filepath.Base(src))
	s.mu.Lock()
	if err := os.Rename(src, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.mu.Unlock()
		return fmt.Errorf("move batch %d to rejected: %w", seq, err)
	}
	s.forgetLocked(seq) // a batch held in memory leaves no copy: the gateway's reason is logged
	s.rejected++
	s.mu.Unlock()
	return s.pruneRejected()
}

func (s *Spool) pruneRejected() error {
	dir := filepath.Join(s.dir, rejectedDir)
	des, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read rejected directory: %w", err)
	}
	var names []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), batchSuffix) {
			names = append(names, de.Name())
		}
	}
	sort.Strings(names) // zero-padded sequence numbers: name order is age order
	var errs []error
	for len(names) > s.maxRejected {
		if err := os.Remove(filepath.Join(dir, names[0])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		names = names[1:]
	}
	return errors.Join(errs...)
}
