package status

import (
	"fmt"
	"io"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policystate"
)

// Policy is the cache policy in force (last known good, kept across restarts) and the OpAMP
// connection that delivers it.
type Policy struct {
	policystate.State
	OpAMPTransport string `json:"opampTransport"`
	OpAMPConnected bool   `json:"opampConnected"`
	OpAMPLastError string `json:"opampLastError,omitempty"`
}

// renderPolicy adds the policy lines to the summary (tab-separated like the rest).
func renderPolicy(w io.Writer, p *Policy, ago func(time.Time) string) {
	if p == nil {
		return
	}
	inForce := "none received yet (defaults; agent.yaml interval)"
	if p.Hash != "" {
		inForce = fmt.Sprintf("%s, applied %s", shortHash(p.Hash), ago(p.AppliedAt))
	}
	fmt.Fprintf(w, "Policy:\t%s\n", inForce)
	if p.Refused != nil {
		fmt.Fprintf(w, "Policy refused:\t%s (%s): %s\n", shortHash(p.Refused.Hash), ago(p.Refused.At), p.Refused.Message)
	}
	connection := "connected"
	if !p.OpAMPConnected {
		connection = "not connected"
		if p.OpAMPLastError != "" {
			connection += ": " + p.OpAMPLastError
		}
	}
	fmt.Fprintf(w, "OpAMP:\t%s over %s\n", connection, p.OpAMPTransport)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
