package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseMinimalIsDefault(t *testing.T) {
	policy, err := Parse([]byte(`{"schemaVersion": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(policy, Default()) {
		t.Errorf("got %+v, want Default()", policy)
	}
}

func TestValidationErrorNamesEveryProblem(t *testing.T) {
	_, err := Parse([]byte(`{"schemaVersion": 1, "readCache": {"budgetBytes": 1024, "pin": ["srv"]}}`))
	var invalid *ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("want a *ValidationError, got %v", err)
	}
	want := "invalid policy: readCache.budgetBytes: must be at least 16 MiB (16777216); " +
		"readCache.pin[0]: must be an absolute path starting with \"/\" (or a drive such as \"D:/\" on Windows)"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

func TestInvalidJSONSaysWhy(t *testing.T) {
	_, err := Parse([]byte(`{"schemaVersion": 1,`))
	if err == nil || !strings.Contains(err.Error(), "policy: is not valid JSON: ") {
		t.Errorf("got %v", err)
	}
}

// The console tells an agent that is older than the policy it was sent from one whose policy is
// wrong by this message (apps/console/modules/policies/lib/older-agent.ts, whose test uses the
// same text): agents of every version must keep "<path>: is not a policy field" for a field they
// do not know.
func TestUnknownFieldMessageIsTheConsolesContract(t *testing.T) {
	_, err := Parse([]byte(`{"schemaVersion": 1, "readCache": {"laterField": 10}, "telemetry": {"otherField": true}}`))
	want := "invalid policy: readCache.laterField: is not a policy field: check its spelling and section against the policy reference; " +
		"telemetry.otherField: is not a policy field: check its spelling and section against the policy reference"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
