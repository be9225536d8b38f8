package agent

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// hostPIDNamespaceInode is the initial PID namespace's inode (PROC_PID_INIT_INO in the kernel).
const hostPIDNamespaceInode = "pid:[4026531836]"

// errOwnPIDNamespace: the page-cache program names threads by their ids in the initial PID
// namespace; an agent in a namespace of its own sees other ids for its threads, so the read
// cache's own page loads could not be told apart and the control group is not held out.
var errOwnPIDNamespace = errors.New("the agent runs in a PID namespace of its own, where the kernel's thread ids are not its own: " +
	"the read cache holds no control group out (run the agent in the host's PID namespace, e.g. hostPID, to measure what it caused)")

// pidNamespaceProblem is nil where the agent's thread ids are the kernel's (Linux, the initial
// PID namespace; or a /proc that does not say, as in tests' fixture trees), else why not.
func pidNamespaceProblem(procPath string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	link, err := os.Readlink(filepath.Join(procPath, "self", "ns", "pid"))
	if err != nil || link == hostPIDNamespaceInode {
		return nil
	}
	return errOwnPIDNamespace
}
