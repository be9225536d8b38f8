//go:build linux

// Command blockcost measures what a running agent costs per block I/O in the kernel, and its
// peak memory: the benchmark of docs/benchmarks.md ("One program per block hook, and agent
// memory"). For -for it attaches an empty program (return 0) at block_rq_issue and at
// block_rq_complete, so the cost kernel.bpf_stats_enabled itself adds to every run (two clock
// reads) is measured under the same load, and reads run_time_ns and run_cnt of the agent's own
// programs from /proc/<pid>/fdinfo (other processes may load programs of the same names) at the
// start and at the end. It prints ns per run for each program, the sum at the two block hooks
// gross and with the empty programs' cost subtracted, and the agent's VmHWM and smaps_rollup.
// Run as root while the I/O load runs; it switches kernel.bpf_stats_enabled on and restores it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

const statsSysctl = "/proc/sys/kernel/bpf_stats_enabled"

func main() {
	pid := flag.Int("pid", 0, "the agent's process id")
	window := flag.Duration("for", 60*time.Second, "how long to measure (while the I/O load runs)")
	flag.Parse()
	if *pid <= 0 {
		fmt.Fprintln(os.Stderr, "blockcost: -pid is required (the running agent)")
		os.Exit(2)
	}
	if err := run(*pid, *window); err != nil {
		fmt.Fprintln(os.Stderr, "blockcost:", err)
		os.Exit(1)
	}
}

type counters struct{ ns, runs uint64 }

// empty is an accounting baseline at one hook.
type empty struct {
	hook string
	prog *ebpf.Program
	link link.Link
}

func run(pid int, window time.Duration) error {
	was, err := os.ReadFile(statsSysctl)
	if err != nil {
		return err
	}
	if err := os.WriteFile(statsSysctl, []byte("1"), 0); err != nil {
		return fmt.Errorf("switch kernel.bpf_stats_enabled on (run as root): %w", err)
	}
	defer os.WriteFile(statsSysctl, was, 0)

	var baselines []empty
	defer func() {
		for _, b := range baselines {
			b.link.Close()
			b.prog.Close()
		}
	}()
	for _, hook := range []string{"block_rq_issue", "block_rq_complete"} {
		prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "empty_" + strings.TrimPrefix(hook, "block_rq_"), Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp,
			AttachTo: hook, License: "GPL", Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
		})
		if err != nil {
			return fmt.Errorf("load the empty program at %s: %w", hook, err)
		}
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			prog.Close()
			return fmt.Errorf("attach the empty program at %s: %w", hook, err)
		}
		baselines = append(baselines, empty{hook, prog, l})
	}

	before, err := agentPrograms(pid)
	if err != nil {
		return err
	}
	emptyBefore, err := emptyCounters(baselines)
	if err != nil {
		return err
	}
	time.Sleep(window)
	after, err := agentPrograms(pid)
	if err != nil {
		return err
	}
	emptyAfter, err := emptyCounters(baselines)
	if err != nil {
		return err
	}

	fmt.Printf("%-22s %-20s %12s %10s\n", "program", "hook", "runs", "ns/run")
	perHook := map[string]float64{}
	ids := make([]ebpf.ProgramID, 0, len(after))
	for id := range after {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		d := delta(after[id], before[id])
		if d.runs == 0 {
			continue
		}
		name, hook := describe(id)
		ns := float64(d.ns) / float64(d.runs)
		fmt.Printf("%-22s %-20s %12d %10.1f\n", name, hook, d.runs, ns)
		if hook == "block_rq_issue" || hook == "block_rq_complete" {
			perHook[hook] += ns
		}
	}
	var gross, accounting float64
	for i, b := range baselines {
		d := delta(emptyAfter[i], emptyBefore[i])
		if d.runs == 0 {
			return fmt.Errorf("the empty program at %s never ran: is there block I/O?", b.hook)
		}
		ns := float64(d.ns) / float64(d.runs)
		fmt.Printf("%-22s %-20s %12d %10.1f\n", "(empty)", b.hook, d.runs, ns)
		if _, used := perHook[b.hook]; used {
			gross += perHook[b.hook]
			accounting += ns
		}
	}
	fmt.Printf("per block I/O at the agent's block hooks: %.0f ns gross, %.0f ns without the accounting (%.0f ns)\n",
		gross, gross-accounting, accounting)
	return printMemory(pid)
}

func delta(after, before counters) counters {
	return counters{after.ns - before.ns, after.runs - before.runs}
}

func emptyCounters(bs []empty) ([]counters, error) {
	out := make([]counters, len(bs))
	for i, b := range bs {
		st, err := b.prog.Stats()
		if err != nil {
			return nil, err
		}
		out[i] = counters{uint64(st.Runtime), st.RunCount}
	}
	return out, nil
}

// agentPrograms reads run_time_ns and run_cnt of every BPF program the process holds.
func agentPrograms(pid int) (map[ebpf.ProgramID]counters, error) {
	fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fdinfo/*", pid))
	if err != nil || len(fds) == 0 {
		return nil, fmt.Errorf("read /proc/%d/fdinfo: is the agent running? %v", pid, err)
	}
	out := map[ebpf.ProgramID]counters{}
	for _, path := range fds {
		f, err := os.Open(path)
		if err != nil {
			continue // closed in between
		}
		var id, ns, runs uint64
		var isProgram bool // a link's fdinfo names its program too, without the counters
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			key, value, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			n, _ := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
			switch key {
			case "prog_id":
				id = n
			case "run_time_ns":
				ns, isProgram = n, true
			case "run_cnt":
				runs = n
			}
		}
		f.Close()
		if id != 0 && isProgram {
			out[ebpf.ProgramID(id)] = counters{ns, runs}
		}
	}
	return out, nil
}

// describe names a program and its hook: the agent's block programs are named after their hook,
// cut to the kernel's 15 characters.
func describe(id ebpf.ProgramID) (name, hook string) {
	prog, err := ebpf.NewProgramFromID(id)
	if err != nil {
		return fmt.Sprintf("id %d", id), "?"
	}
	defer prog.Close()
	info, err := prog.Info()
	if err != nil {
		return fmt.Sprintf("id %d", id), "?"
	}
	for _, h := range []string{"block_rq_issue", "block_rq_complete", "block_split"} {
		if strings.HasPrefix(h, info.Name) && len(info.Name) >= len("block_rq_") {
			return info.Name, h
		}
	}
	return info.Name, "-"
}

func printMemory(pid int) error {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") || strings.HasPrefix(line, "VmRSS:") {
			fmt.Println(strings.Join(strings.Fields(line), " "))
		}
	}
	rollup, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(rollup), "\n") {
		for _, key := range []string{"Rss:", "Anonymous:", "Shared_Clean:", "Private_Clean:"} {
			if strings.HasPrefix(line, key) {
				fmt.Println(strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return nil
}
