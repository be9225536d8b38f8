//go:build !linux

package pagecache

import "github.com/spindle-io/spindle/agent/internal/bpf"

// Probe is the loaded program; on this system it never loads.
type Probe struct{}

// Load reports that eBPF needs Linux.
func Load() (*Probe, error) { return nil, bpf.Prepare() }

// LoadForProcess reports that eBPF needs Linux.
func LoadForProcess(int) (*Probe, error) { return nil, bpf.Prepare() }

// Read is never reached: Load fails.
func (p *Probe) Read() (Counts, error) { return Counts{}, bpf.ErrUnsupported }

// ReadFiles is never reached: Load fails.
func (p *Probe) ReadFiles() (Files, error) { return nil, bpf.ErrUnsupported }

// Close does nothing.
func (p *Probe) Close() error { return nil }

// SetHoldout is never reached: Load fails.
func (p *Probe) SetHoldout(HoldoutDraw) error { return bpf.ErrUnsupported }

// SetCacheThread is never reached: Load fails.
func (p *Probe) SetCacheThread(uint32) error { return bpf.ErrUnsupported }

// TrackHoldoutFiles is never reached: Load fails.
func (p *Probe) TrackHoldoutFiles([]FileID) error { return bpf.ErrUnsupported }

// ReadHoldout is never reached: Load fails.
func (p *Probe) ReadHoldout([]FileID) (map[FileID]HoldoutCounts, error) {
	return nil, bpf.ErrUnsupported
}

// ReadHoldoutBuckets is never reached: Load fails.
func (p *Probe) ReadHoldoutBuckets() ([HoldoutBuckets]HoldoutBucket, error) {
	return [HoldoutBuckets]HoldoutBucket{}, bpf.ErrUnsupported
}
