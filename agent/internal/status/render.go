package status

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spindle-io/spindle/agent/internal/collector"
)

// Health is the one-line verdict `status` leads with.
type Health string

const (
	Healthy      Health = "healthy"
	Stale        Health = "not running"
	Stopped      Health = "stopped"
	Unauthorised Health = "credential refused"
	Degraded     Health = "degraded"
)

// Assess judges a status file at time now. A file older than three intervals means the agent
// is not running (or hangs).
func Assess(f File, now time.Time) (Health, []string) {
	var hints []string
	interval := time.Duration(f.IntervalSeconds * float64(time.Second))
	switch {
	case f.Stopped:
		return Stopped, []string{"the agent stopped cleanly at " + f.UpdatedAt.Format(time.RFC3339) + ": start it with systemctl start spindle-agent"}
	case now.Sub(f.UpdatedAt) > 3*interval+5*time.Second:
		return Stale, []string{fmt.Sprintf("last update %s ago (pid %d): check systemctl status spindle-agent and journalctl -u spindle-agent", now.Sub(f.UpdatedAt).Round(time.Second), f.PID)}
	case f.Delivery.Unauthenticated:
		return Unauthorised, []string{"the gateway refuses this agent's credential (revoked, or the server was enrolled again elsewhere): " +
			"create a new token in the console and run spindle-agent enroll --token <token> --gateway " + f.Gateway + ", then restart the agent. Batches are kept meanwhile."}
	}
	health := Healthy
	if f.Delivery.FailedAttempts > 0 {
		health = Degraded
		hints = append(hints, fmt.Sprintf("delivery is failing (%d attempts): %s. Batches wait in the spool.", f.Delivery.FailedAttempts, f.Delivery.LastError))
	}
	if f.LastExportError != "" {
		health = Degraded
		hints = append(hints, "writing batches to the spool failed: "+f.LastExportError)
	}
	for _, c := range f.Collectors {
		if c.State == collector.StateError {
			health = Degraded
			hints = append(hints, fmt.Sprintf("collector %s failed: %s", c.Name, c.Error))
		}
	}
	if f.Spool.DroppedBatches > 0 {
		hints = append(hints, fmt.Sprintf("%d batches were dropped because the spool was full: raise spool.max_bytes or restore delivery", f.Spool.DroppedBatches))
	}
	return health, hints
}

// Render writes the human summary.
func Render(w io.Writer, f File, now time.Time) error {
	health, hints := Assess(f, now)
	ago := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04:05"), now.Sub(t).Round(time.Second))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Status:\t%s\n", health)
	fmt.Fprintf(tw, "Agent:\t%s (pid %d, version %s)\n", f.AgentID, f.PID, f.AgentVersion)
	fmt.Fprintf(tw, "Server:\t%s\n", f.ServerID)
	fmt.Fprintf(tw, "Gateway:\t%s\n", f.Gateway)
	fmt.Fprintf(tw, "Last collection:\t%s, every %gs\n", ago(f.LastCollection), f.IntervalSeconds)
	delivered := ago(f.Delivery.LastDelivery)
	if f.Delivery.LastDeliveredSeq > 0 {
		delivered += fmt.Sprintf(", batch %d", f.Delivery.LastDeliveredSeq)
	}
	fmt.Fprintf(tw, "Last delivery:\t%s\n", delivered)
	fmt.Fprintf(tw, "Spool:\t%d batches, %s of %s; %d dropped, %d rejected\n", f.Spool.Batches,
		bytesText(f.Spool.Bytes), bytesText(f.Spool.MaxBytes), f.Spool.DroppedBatches, f.Spool.RejectedBatches)
	if f.Delivery.LastError != "" {
		fmt.Fprintf(tw, "Last error:\t%s (%s)\n", f.Delivery.LastError, ago(f.Delivery.LastErrorAt))
	}
	var collectors []string
	for _, c := range f.Collectors {
		collectors = append(collectors, fmt.Sprintf("%s %s", c.Name, c.State))
	}
	fmt.Fprintf(tw, "Collectors:\t%s\n", strings.Join(collectors, ", "))
	for _, c := range f.Capabilities {
		state := "available"
		if !c.Available {
			state = "missing: " + c.Reason
		}
		fmt.Fprintf(tw, "Capability %s:\t%s\n", c.Name, state)
	}
	renderPolicy(tw, f.Policy, ago)
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(f.Disks) > 0 {
		fmt.Fprintln(w)
		dw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(dw, "device\tr/s\tw/s\trMB/s\twMB/s\tr_ms\tw_ms\tqueue\tutil%\t")
		for _, d := range f.Disks {
			fmt.Fprintf(dw, "%s\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t\n", d.Device, d.ReadIOPS, d.WriteIOPS,
				d.ReadMBps, d.WriteMBps, d.ReadLatencyMs, d.WriteLatencyMs, d.QueueDepth, d.UtilisationPercent)
		}
		if err := dw.Flush(); err != nil {
			return err
		}
	}
	if len(hints) > 0 {
		fmt.Fprintln(w)
		for _, h := range hints {
			fmt.Fprintf(w, "- %s\n", h)
		}
	}
	return nil
}

func bytesText(n int64) string {
	const mib = 1 << 20
	if n >= mib {
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
