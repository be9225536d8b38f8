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
