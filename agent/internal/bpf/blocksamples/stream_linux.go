package blocksamples

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// pollInterval bounds how stale the ring is when the disk is quiet: the kernel wakes the
// reader early only when its buffer is half full.
const pollInterval = time.Second

// Stream is the loaded program and the goroutine that moves samples into the ring.
type Stream struct {
	objs   blocksamplesObjects
	link   link.Link
	reader *ringbuf.Reader
	ring   *Ring
	bootAt time.Time // wall time of CLOCK_MONOTONIC zero, to date samples
	done   chan struct{}
	once   sync.Once
}

// Start loads and attaches the program and starts reading. Failures caused by the system wrap
// bpf.ErrUnsupported.
func Start(s Settings) (*Stream, error) {
	if s.SampleEvery == 0 || s.Capacity <= 0 {
		return nil, fmt.Errorf("block samples: sample_every (%d) and capacity (%d) must be positive", s.SampleEvery, s.Capacity)
	}
	if err := bpf.Prepare(); err != nil {
		return nil, err
	}
	spec, err := loadBlocksamples()
	if err != nil {
		return nil, fmt.Errorf("parse the embedded block samples program: %w", err)
	}
	if err := spec.Variables["sample_every"].Set(s.SampleEvery); err != nil {
		return nil, fmt.Errorf("set the sampling rate: %w", err)
	}
	st := &Stream{ring: NewRing(s.Capacity), done: make(chan struct{})}
	if err := spec.LoadAndAssign(&st.objs, nil); err != nil {
		return nil, bpf.Explain("load the block samples program", err)
	}
	if st.link, err = link.AttachTracing(link.TracingOptions{Program: st.objs.BlockRqIssue}); err != nil {
		st.closeObjects()
		return nil, bpf.Explain("attach the block samples program to block:block_rq_issue", err)
	}
	if st.reader, err = ringbuf.NewReader(st.objs.Samples); err != nil {
		st.closeObjects()
		return nil, bpf.Explain("open the block samples ring buffer", err)
	}
	var mono unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono); err != nil {
		st.closeObjects()
		return nil, fmt.Errorf("read the monotonic clock: %w", err)
	}
	st.bootAt = time.Now().Add(-time.Duration(mono.Nano()))
	go st.read()
	return st, nil
}

func (st *Stream) read() {
	defer close(st.done)
	var rec ringbuf.Record
	for {
		st.reader.SetDeadline(time.Now().Add(pollInterval))
		err := st.reader.ReadInto(&rec)
		switch {
		case errors.Is(err, ringbuf.ErrClosed):
			return
		case errors.Is(err, os.ErrDeadlineExceeded):
			continue
		case err != nil:
			// Only a broken epoll gets here; back off rather than spin.
			time.Sleep(pollInterval)
			continue
		}
		if len(rec.RawSample) < 32 {
			continue
		}
		raw := rec.RawSample
		st.ring.Push(Sample{
			Time:   st.bootAt.Add(time.Duration(binary.NativeEndian.Uint64(raw[0:]))),
			Sector: binary.NativeEndian.Uint64(raw[8:]),
			Dev:    bpf.Dev(binary.NativeEndian.Uint32(raw[16:])),
			Bytes:  binary.NativeEndian.Uint32(raw[20:]),
			Op:     bpf.Op(binary.NativeEndian.Uint32(raw[24:])),
		})
	}
}

// Ring is where the samples go.
func (st *Stream) Ring() *Ring { return st.ring }

// Lost is the number of samples the kernel dropped because its buffer was full, cumulative.
func (st *Stream) Lost() (uint64, error) {
	var perCPU []uint64
	if err := st.objs.Lost.Lookup(uint32(0), &perCPU); err != nil {
		return 0, fmt.Errorf("read the lost samples count: %w", err)
	}
	var n uint64
	for _, c := range perCPU {
		n += c
	}
	return n, nil
}

// Close stops the reader, detaches the program and frees the maps. Safe to call twice.
func (st *Stream) Close() error {
	var errs []error
	st.once.Do(func() {
		if st.reader != nil {
			errs = append(errs, st.reader.Close())
			<-st.done
		}
		errs = append(errs, st.closeObjects())
	})
	return errors.Join(errs...)
}

func (st *Stream) closeObjects() error {
	var errs []error
	if st.link != nil {
		errs = append(errs, st.link.Close())
		st.link = nil
	}
	return errors.Join(append(errs, st.objs.Close())...)
}
