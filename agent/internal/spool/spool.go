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
//
// When the disk refuses a batch (full, over quota, read-only) the batch is held in memory,
// within MaxHeldBytes, and delivered from there; each later Append first tries to write the
// held batches to disk. A full disk therefore loses nothing while it lasts less than that
// bound; beyond it the oldest held batches are dropped, counted and logged by sequence
// number, as the byte bound drops spooled ones. Held batches do not survive a restart.
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
	// MaxHeldBytes bounds the batches held in memory while the disk refuses them (never more
	// than the spool's own bound): hours of 10 s batches, a small part of the agent's memory.
	MaxHeldBytes = 8 << 20
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
	// HeldBatches and HeldBytes wait in memory because the disk refused them (WriteError).
	HeldBatches int    `json:"heldBatches"`
	HeldBytes   int64  `json:"heldBytes"`
	WriteError  string `json:"writeError,omitempty"`
}

type entry struct {
	seq  uint64
	size int64
	held []byte // the encoded file while the disk refuses it; nil once it is on disk
}

// Spool is safe for concurrent use by one writer (the exporter) and one reader (the
// forwarder).
type Spool struct {
	dir         string
	maxBytes    int64
	maxRejected int
	logger      *slog.Logger
	notify      chan struct{}

	mu        sync.Mutex
	entries   []entry // ascending seq
	bytes     int64
	heldBytes int64
	writeErr  error // the disk's last refusal; nil once everything held is on disk
	dropped   uint64
	rejected  uint64
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
// because replay order is file order. A batch the disk refuses is held in memory (see the
// package comment), so Append fails only for a batch out of order or one it cannot encode.
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
	s.writeHeldLocked()
	e := entry{seq: b.Seq, size: int64(len(data))}
	if err := s.writeLocked(b.Seq, data); err != nil {
		if s.writeErr == nil {
			s.logger.Warn("the spool's disk refuses batches: holding them in memory and delivering from there",
				"seq", b.Seq, "error", err, "max_held_bytes", s.maxHeldBytes(),
				"hint", "free space on the filesystem of "+s.dir)
		}
		s.writeErr = err
		e.held = data
		s.heldBytes += e.size
	}
	s.entries = append(s.entries, e)
	s.bytes += e.size
	err = s.enforceBoundLocked()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return err
}

func (s *Spool) writeLocked(seq uint64, data []byte) error {
	tmp := filepath.Join(s.dir, fmt.Sprintf(".%020d%s", seq, tmpSuffix))
	if err := writeDurably(tmp, s.path(seq), data); err != nil {
		return fmt.Errorf("spool batch %d: %w", seq, err)
	}
	return nil
}

// writeHeldLocked moves held batches to disk, oldest first, until the disk refuses one.
func (s *Spool) writeHeldLocked() {
	if s.heldBytes == 0 {
		return
	}
	for i := range s.entries {
		e := &s.entries[i]
		if e.held == nil {
			continue
		}
		if err := s.writeLocked(e.seq, e.held); err != nil {
			s.writeErr = err
			return
		}
		s.heldBytes -= e.size
		e.held = nil
	}
	s.writeErr = nil
	s.logger.Info("the spool's disk takes batches again; every batch held in memory is on disk")
}

func (s *Spool) maxHeldBytes() int64 { return min(s.maxBytes, MaxHeldBytes) }

// enforceBoundLocked drops oldest batches until the spool fits its byte bound and what it
// holds in memory fits MaxHeldBytes. The newest batch is always kept: a bound smaller than
// one batch must not make the agent send nothing.
func (s *Spool) enforceBoundLocked() error {
	var dropped []uint64
	for len(s.entries) > 1 && (s.bytes > s.maxBytes || s.heldBytes > s.maxHeldBytes()) {
		i := 0
		if s.bytes <= s.maxBytes { // only memory is over: drop the oldest held batch
			for s.entries[i].held == nil {
				i++
			}
		}
		e := s.entries[i]
		if e.held == nil {
			if err := os.Remove(s.path(e.seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("drop batch %d: %w", e.seq, err)
			}
		} else {
			s.heldBytes -= e.size
		}
		s.entries = append(s.entries[:i], s.entries[i+1:]...)
		s.bytes -= e.size
		s.dropped++
		dropped = append(dropped, e.seq)
	}
	if len(dropped) > 0 {
		s.logger.Warn("spool is full: dropped the oldest batches; they will not reach the gateway",
			"dropped", len(dropped), "first_seq", dropped[0], "last_seq", dropped[len(dropped)-1],
			"max_bytes", s.maxBytes, "held_in_memory_bytes", s.heldBytes, "max_held_bytes", s.maxHeldBytes(),
			"hint", "raise spool.max_bytes, free space on the spool's disk, or fix delivery (see spindle-agent status)")
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
		e := s.entries[0]
		s.mu.Unlock()

		b, err := s.read(e)
		if errors.Is(err, fs.ErrNotExist) {
			s.forget(e.seq) // dropped by the bound between our lock and the read
			continue
		}
		var unreadable *unreadableError
		if errors.As(err, &unreadable) {
			s.logger.Error("unreadable spool file moved to rejected", "seq", e.seq, "error", err)
			if rerr := s.Reject(e.seq); rerr != nil {
				return Batch{}, false, rerr
			}
			continue
		}
		if err != nil {
			return Batch{}, false, err
		}
		return b, true, nil
	}
}

// OldestBatches returns the oldest batch and as many of the following ones, oldest first,
// as fit in maxBatches and maxBodyBytes of body and share its content encoding: a backlog is
// replayed several batches per request (the gateway writes each one once, all in one
// transaction). The first batch is returned whatever its size; nil when the spool is empty.
func (s *Spool) OldestBatches(maxBatches int, maxBodyBytes int64) ([]Batch, error) {
	first, ok, err := s.Oldest()
	if err != nil || !ok {
		return nil, err
	}
	out, size := []Batch{first}, int64(len(first.Body))
	s.mu.Lock()
	var following []entry
	for _, e := range s.entries {
		if len(following)+1 >= maxBatches {
			break
		}
		if e.seq > first.Seq {
			following = append(following, e)
		}
	}
	s.mu.Unlock()
	for _, e := range following {
		b, err := s.read(e)
		if err != nil || b.ContentEncoding != first.ContentEncoding || size+int64(len(b.Body)) > maxBodyBytes {
			break // Oldest deals with a missing or unreadable batch when it comes first
		}
		out, size = append(out, b), size+int64(len(b.Body))
	}
	return out, nil
}

type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

// read returns a batch from memory or disk: fs.ErrNotExist when it is gone, an
// *unreadableError when its file cannot be decoded.
func (s *Spool) read(e entry) (Batch, error) {
	data := e.held
	if data == nil {
		var err error
		if data, err = os.ReadFile(s.path(e.seq)); err != nil {
			return Batch{}, fmt.Errorf("read batch %d: %w", e.seq, err)
		}
	}
	b, err := decode(e.seq, data)
	if err != nil {
		return Batch{}, &unreadableError{err}
	}
	return b, nil
}

// Remove deletes a batch the gateway acknowledged. A batch already dropped is fine. Under
// the lock, so a held batch cannot reach the disk after its removal and linger there.
func (s *Spool) Remove(seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path(seq)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove acknowledged batch %d: %w", seq, err)
	}
	s.forgetLocked(seq)
	return nil
}

func (s *Spool) forget(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(seq)
}

func (s *Spool) forgetLocked(seq uint64) {
	for i, e := range s.entries {
		if e.seq == seq {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			s.bytes -= e.size
			if e.held != nil {
				s.heldBytes -= e.size
				if s.heldBytes == 0 {
					s.writeErr = nil // delivered from memory: nothing waits for the disk any more
				}
			}
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
	for _, e := range s.entries {
		if e.held != nil {
			st.HeldBatches++
		}
	}
	st.HeldBytes = s.heldBytes
	if s.writeErr != nil {
		st.WriteError = s.writeErr.Error()
	}
	return st
}

// Close tries once more to write what is held in memory, and says which batches a stop loses
// because the disk still refuses them.
func (s *Spool) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeldLocked()
	var lost []uint64
	for _, e := range s.entries {
		if e.held != nil {
			lost = append(lost, e.seq)
		}
	}
	if len(lost) > 0 {
		s.logger.Error("batches held in memory are lost at this stop: the spool's disk still refuses them",
			"batches", len(lost), "first_seq", lost[0], "last_seq", lost[len(lost)-1], "error", s.writeErr)
	}
}
