package config

import (
	"strings"
	"testing"
)

func TestPolicyRootsMustBeCleanAbsoluteDirectories(t *testing.T) {
	c := Default()
	c.PolicyRoots = []string{"/var/lib/postgresql", "/"}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid roots refused: %v", err)
	}
	for _, bad := range []string{"srv/pg", "/srv/pg/", "/srv/../etc", ""} {
		c.PolicyRoots = []string{bad}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "policy_roots") {
			t.Errorf("policy_roots %q: %v, want a refusal naming policy_roots", bad, err)
		}
	}
}
