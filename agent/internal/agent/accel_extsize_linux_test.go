package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
	"github.com/spindle-io/spindle/agent/internal/config"
)

// The extent size hint capability is missing, with the reason, by default (agent.yaml asks for
// none), where new files are seen only
// after their first data (XFS takes no hint then) and where no XFS is mounted; its reason when
// an XFS is mounted is TestProbeExtentSizeHintListsTheXFSMounts (writeopt).
func TestExtentSizeHintCapabilitySaysWhyNot(t *testing.T) {
	err := probeExtentSizeHint("/proc", config.ExtentSizeHintOff, nil)
	if !errors.Is(err, writeopt.ErrUnsupported) || !strings.Contains(err.Error(), "extent_size_hint: off") {
		t.Errorf("by default: %v, want the reason to name write_optimization.extent_size_hint: off", err)
	}
	err = probeExtentSizeHint("/proc", config.ExtentSizeHintFirstWindow, writeopt.ErrFirstWriteInotify)
	if err == nil || !strings.Contains(err.Error(), "first_write: inotify") || !strings.Contains(err.Error(), "before a file's first data") {
		t.Errorf("first_write: inotify: %v, want the reason to name it and why it matters", err)
	}
	proc := t.TempDir()
	if err := os.Mkdir(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte("22 1 254:1 / / rw - ext4 /dev/vda rw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := probeExtentSizeHint(proc, config.ExtentSizeHintFirstWindow, nil); !errors.Is(err, writeopt.ErrUnsupported) || !strings.Contains(err.Error(), "no XFS") {
		t.Errorf("ext4 only: %v, want ErrUnsupported saying no XFS is mounted", err)
	}
}
