// Package spool keeps export batches on disk until the gateway acknowledges them, so that
// nothing is lost while the gateway or its database is down, and replays them in order.
//
// Layout under the spool directory:
//
//	00000000000000000042.batch   one OTLP request each, named by its batch sequence number
//	.00000000000000000043.tmp    being written; removed at start if a crash left it
//	rejected/                    batches the gateway refused for good (400, 413), bounded
//
// A batch file is a one-line header (format version and content encoding) followed by the
// exact HTTP request body the OTLP exporter produced. Files are written to a temp name,
// fsynced and renamed, so a reader never sees half a batch.
package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

const (
	batchSuffix = ".batch"
	tmpSuffix   = ".tmp"
	rejectedDir = "rejected"
	// DefaultMaxRejected bounds spool/rejected: enough to diagnose, never a disk filler.
	DefaultMaxRejected = 50
)

// Batch is one export request.
type Batch struct {
	Seq             uint64
	ContentEncoding string // "gzip" or "" (identity)
	Body            []byte
}

// Stats is a snapshot for status reporting.
type Stats struct {
	Batches         int    `json:"batches"`
	Bytes           int64  `json:"bytes"`
	MaxBytes        int64  `json:"maxBytes"`
	DroppedBatches  uint64 `json:"droppedBatches"`
	RejectedBatches uint64 `json:"rejectedBatches"`
	OldestSeq       uint64 `json:"oldestSeq,omitempty"`
	NewestSeq       uint64 `json:"newestSeq,omitempty"`
}

type entry struct {
	seq  uint64
	size int64
}

// Spool is safe for concurrent use by one writer (the exporter) and one reader (the
// forwarder).
type Spool struct {
	dir         string
	maxBytes    int64
	maxRejected int
	logger      *slog.Logger
	notify      chan struct{}

	mu       sync.Mutex
	entries  []entry // ascending seq
	bytes    int64
	dropped  uint64
	rejected uint64
}

// Open scans dir (creating it), removes temp files a crash left behind, and enforces the
// byte bound on what it finds.
func Open(dir string, maxBytes int64, logger *slog.Logger) (*Spool, error) {
	if err := os.MkdirAll(filepath.Join(dir, rejectedDir), 0o700); err != nil {
		return nil, fmt.Errorf("create spool directory: %w", err)
	}
	s := &Spool{dir: dir, maxBytes: maxBytes, maxRejected: DefaultMaxRejected, logger: logger,
		notify: make(chan struct{}, 1)}
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read spool directory: %w", err)
	}
	for _, de := range names {
		name := de.Name()
		switch {
		case strings.HasSuffix(name, tmpSuffix):
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("remove partial batch %s: %w", name, err)
			}
			logger.Info("removed a partial batch left by a crash", "file", name)
		case strings.HasSuffix(name, batchSuffix):
			seq, err := strconv.ParseUint(strings.TrimSuffix(name, batchSuffix), 10, 64)
			if err != nil {
				logger.Warn("ignoring a spool file that is not named by a sequence number", "file", name)
				continue
			}
			info, err := de.Info()
			if err != nil {
				return nil, fmt.Errorf("stat %s: %w", name, err)
			}
			s.entries = append(s.entries, entry{seq: seq, size: info.Size()})
			s.bytes += info.Size()
		}
	}
	sort.Slice(s.entries, func(i, j int) bool { return s.entries[i].seq < s.entries[j].seq })
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.enforceBoundLocked(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Spool) path(seq uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%020d%s", seq, batchSuffix))
}

// Append stores a batch durably, then drops the oldest batches while the spool is over its
// byte bound. Sequence numbers must increase: a batch at or below the newest is refused,
// because replay order is file order.
func (s *Spool) Append(b Batch) error {
	data, err := encode(b)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.entries); n > 0 && b.Seq <= s.entries[n-1].seq {
		return fmt.Errorf("batch %d is not above the newest spooled batch %d", b.Seq, s.entries[n-1].seq)
	}
	final := s.path(b.Seq)
	tmp := filepath.Join(s.dir, fmt.Sprintf(".%020d%s", b.Seq, tmpSuffix))
	if err := writeDurably(tmp, final, data); err != nil {
		return fmt.Errorf("spool batch %d: %w", b.Seq, err)
	}
	s.entries = append(s.entries, entry{seq: b.Seq, size: int64(len(data))})
	s.bytes += int64(len(data))
	err = s.enforceBoundLocked()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return err
}

// enforceBoundLocked drops oldest batches until the spool fits. The newest batch is always
// kept: a bound smaller than one batch must not make the agent send nothing.
func (s *Spool) enforceBoundLocked() error {
	var dropped []uint64
	for s.bytes > s.maxBytes && len(s.entries) > 1 {
		oldest := s.entries[0]
		if err := os.Remove(s.path(oldest.seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("drop batch %d: %w", oldest.seq, err)
		}
		s.entries = s.entries[1:]
		s.bytes -= oldest.size
		s.dropped++
		dropped = append(dropped, oldest.seq)
	}
	if len(dropped) > 0 {
		s.logger.Warn("spool is full: dropped the oldest batches; they will not reach the gateway",
			"dropped", len(dropped), "first_seq", dropped[0], "last_seq", dropped[len(dropped)-1],
			"max_bytes", s.maxBytes, "hint", "raise spool.max_bytes or fix delivery (see spindle-agent status)")
	}
	return nil
}

// Oldest returns the oldest batch; ok is false when the spool is empty. A file that cannot
// be decoded is moved to rejected/ and skipped: it could never be delivered.
func (s *Spool) Oldest() (b Batch, ok bool, err error) {
	for {
		s.mu.Lock()
		if len(s.entries) == 0 {
			s.mu.Unlock()
			return Batch{}, false, nil
		}
		seq := s.entries[0].seq
		s.mu.Unlock()

		data, err := os.ReadFile(s.path(seq))
		if errors.Is(err, fs.ErrNotExist) {
			s.forget(seq) // dropped by the bound between our lock and the read
			continue
		}
		if err != nil {
			return Batch{}, false, fmt.Errorf("read batch %d: %w", seq, err)
		}
		b, err := decode(seq, data)
		if err != nil {
			s.logger.Error("unreadable spool file moved to rejected", "seq", seq, "error", err)
			if rerr := s.Reject(seq); rerr != nil {
				return Batch{}, false, rerr
			}
			continue
		}
		return b, true, nil
	}
}

// Remove deletes a batch the gateway acknowledged. A batch already dropped is fine.
func (s *Spool) Remove(seq uint64) error {
	if err := os.Remove(s.path(seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove acknowledged batch %d: %w", seq, err)
	}
	s.forget(seq)
	return nil
}

func (s *Spool) forget(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.entries {
		if e.seq == seq {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			s.bytes -= e.size
			return
		}
	}
}

// Notify receives a value after each Append, so an idle forwarder wakes at once.
func (s *Spool) Notify() <-chan struct{} { return s.notify }

// Stats returns a snapshot.
func (s *Spool) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Batches: len(s.entries), Bytes: s.bytes, MaxBytes: s.maxBytes,
		DroppedBatches: s.dropped, RejectedBatches: s.rejected}
	if n := len(s.entries); n > 0 {
		st.OldestSeq, st.NewestSeq = s.entries[0].seq, s.entries[n-1].seq
	}
	return st
}
