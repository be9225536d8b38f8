package policystate

import (
	"context"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Applier puts one feature's part of a policy into effect (telemetry, read cache, write
// optimisation). The Manager calls its appliers one at a time, never concurrently:
//
//  1. Check on every applier with the new policy; any error refuses the policy, nothing changes.
//  2. Apply on each applier in order. When one fails, the ones already applied get Apply with
//     the previous policy again (in reverse order), so the agent stays on one whole policy.
//
// Apply must leave its feature as it was when it returns an error.
type Applier interface {
	// Name identifies the feature in messages ("telemetry", "read cache").
	Name() string
	// Check refuses a policy this agent or host cannot run, with a message saying what to
	// change (in the policy, the host, or the agent's configuration).
	Check(p policy.Policy) error
	// Apply makes p take effect for this feature.
	Apply(ctx context.Context, p policy.Policy) error
}
