package blockio

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// kernelStampsEveryDisk says whether the kernel stamps the issue time of every request the block
// programs can see, so that block_rq_issue need not run (blockio.bpf.c, issued_at): the kernel
// names RQF_STATS in its BTF (the programs read the flag through it), and every request-based
// disk keeps queue statistics, which writeback throttling switches on (wbt_lat_usec above 0;
// bio-based devices such as device-mapper have no requests and do not count). Anything it cannot
// tell counts as no: the issue program then runs, as it always did.
func kernelStampsEveryDisk() bool {
	return kernelNamesRQFStats() && everyQueueKeepsStats("/sys/block")
}

func kernelNamesRQFStats() bool {
	spec, err := bpf.KernelTypes().Kernel()
	if err != nil {
		return false
	}
	var flags *btf.Enum
	if err := spec.TypeByName("rqf_flags", &flags); err != nil {
		return false
	}
	for _, v := range flags.Values {
		if v.Name == "__RQF_STATS" {
			return true
		}
	}
	return false
}

// everyQueueKeepsStats reads <sysBlock>/<disk>/queue/wbt_lat_usec of every disk with a
// multi-queue (request-based) queue.
func everyQueueKeepsStats(sysBlock string) bool {
	disks, err := os.ReadDir(sysBlock)
	if err != nil {
		return false
	}
	for _, d := range disks {
		if _, err := os.Stat(filepath.Join(sysBlock, d.Name(), "mq")); err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(sysBlock, d.Name(), "queue", "wbt_lat_usec"))
		if err != nil {
			return false
		}
		if usec, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err != nil || usec <= 0 {
			return false
		}
	}
	return true
}
