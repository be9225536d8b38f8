package policystate

import (
	"context"
	"fmt"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// rootsApplier refuses a policy that names a path outside the roots the host's administrator
// allowed in agent.yaml (policy_roots): whoever can edit policies in the console must not be
// able to point the root agent at /etc or /home. Exclude patterns only narrow and are checked
// too, so that a refused policy is refused whole and the message names every field to change.
type rootsApplier struct {
	roots      []string
	configPath string
}

// NewRootsApplier checks every policy path against roots; no roots means no restriction.
func NewRootsApplier(roots []string, configPath string) Applier {
	return rootsApplier{roots: roots, configPath: configPath}
}

func (r rootsApplier) Name() string { return "policy roots" }

func (r rootsApplier) Check(p policy.Policy) error {
	if len(r.roots) == 0 {
		return nil
	}
	var outside []string
	for _, field := range p.PathFields() {
		if !r.allowed(policy.LiteralPrefix(field[1])) {
			outside = append(outside, fmt.Sprintf("%s %q", field[0], field[1]))
		}
	}
	if len(outside) == 0 {
		return nil
	}
	return fmt.Errorf("%s lie outside the directories this host allows policies to touch (%s); "+
		"change the policy, or add a root to policy_roots in %s on the host and restart the agent",
		strings.Join(outside, ", "), strings.Join(r.roots, ", "), r.configPath)
}

func (r rootsApplier) allowed(prefix string) bool {
	for _, root := range r.roots {
		if root == "/" || prefix == root || strings.HasPrefix(prefix, root+"/") {
			return true
		}
	}
	return false
}

func (r rootsApplier) Apply(context.Context, policy.Policy) error { return nil }
