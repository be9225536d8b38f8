package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The shared vectors of packages/policy, which the TypeScript tests run too.
const vectorsDir = "../../../packages/policy/vectors"

type expectedProblem struct {
	Path string `json:"path"`
	Code Code   `json:"code"`
}

type vector struct {
	Description string            `json:"description"`
	Policy      json.RawMessage   `json:"policy"`
	PolicyText  *string           `json:"policyText"`
	Normalised  json.RawMessage   `json:"normalised"`
	Errors      []expectedProblem `json:"errors"`
}

// policyBytes is the document exactly as written in the vector file.
func (v vector) policyBytes(t *testing.T) []byte {
	t.Helper()
	if (v.Policy == nil) == (v.PolicyText == nil) {
		t.Fatal("a vector has exactly one of policy and policyText")
	}
	if v.PolicyText != nil {
		return []byte(*v.PolicyText)
	}
	return v.Policy
}

func loadVectors(t *testing.T, folder string) map[string]vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorsDir, folder, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in %s (err %v): run the tests from agent/internal/policy in the monorepo", folder, err)
	}
	vectors := make(map[string]vector, len(files))
	for _, file := range files {
		var v vector
		readJSON(t, file, &v)
		if v.Description == "" {
			t.Fatalf("%s: every vector needs a description", file)
		}
		vectors[filepath.Base(file)] = v
	}
	return vectors
}

func readJSON(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// sameJSON compares two JSON documents by value, not by spelling.
func sameJSON(t *testing.T, got any, want json.RawMessage) {
	t.Helper()
	gotBytes, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var gotValue, wantValue any
	if err := json.Unmarshal(gotBytes, &gotValue); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &wantValue); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotValue, wantValue) {
		t.Errorf("got  %s\nwant %s", gotBytes, want)
	}
}

func TestValidVectors(t *testing.T) {
	for name, v := range loadVectors(t, "valid") {
		t.Run(name, func(t *testing.T) {
			policy, err := Parse(v.policyBytes(t))
			if err != nil {
				t.Fatalf("%s: %v", v.Description, err)
			}
			sameJSON(t, policy, v.Normalised)
		})
	}
}

func TestInvalidVectors(t *testing.T) {
	covered := map[Code]bool{}
	for name, v := range loadVectors(t, "invalid") {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(v.policyBytes(t))
			var invalid *ValidationError
			if !errors.As(err, &invalid) {
				t.Fatalf("%s: want a *ValidationError, got %v", v.Description, err)
			}
			got := make([]expectedProblem, len(invalid.Problems))
			for i, p := range invalid.Problems {
				got[i] = expectedProblem{Path: p.Path, Code: p.Code}
				if len(p.Message) <= 10 {
					t.Errorf("%s %s needs a message a person can act on, got %q", p.Path, p.Code, p.Message)
				}
			}
			if !slices.Equal(got, v.Errors) {
				t.Errorf("%s\ngot  %v\nwant %v", v.Description, got, v.Errors)
			}
		})
		for _, e := range v.Errors {
			covered[e.Code] = true
		}
	}
	for _, code := range Codes {
		if !covered[code] {
			t.Errorf("no invalid vector covers %s", code)
		}
	}
}

func TestMergeVectorsNormaliseAlike(t *testing.T) {
	// The console merges layers (packages/policy mergePolicies); the agent receives the merged
	// document. It must reach the same verdict on it.
	for name, v := range loadMergeVectors(t) {
		t.Run(name, func(t *testing.T) {
			policy, err := Parse(v.Merged)
			if v.Errors == nil {
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, policy, v.Normalised)
				return
			}
			var invalid *ValidationError
			if !errors.As(err, &invalid) {
				t.Fatalf("want a *ValidationError, got %v", err)
			}
			got := make([]expectedProblem, len(invalid.Problems))
			for i, p := range invalid.Problems {
				got[i] = expectedProblem{Path: p.Path, Code: p.Code}
			}
			if !slices.Equal(got, v.Errors) {
				t.Errorf("got %v, want %v", got, v.Errors)
			}
		})
	}
}

type mergeVector struct {
	Description string            `json:"description"`
	Layers      []json.RawMessage `json:"layers"`
	Merged      json.RawMessage   `json:"merged"`
	Normalised  json.RawMessage   `json:"normalised"`
	Errors      []expectedProblem `json:"errors"`
}

func loadMergeVectors(t *testing.T) map[string]mergeVector {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "merge", "*.json"))
	if len(files) == 0 {
		t.Fatal("no merge vectors")
	}
	vectors := map[string]mergeVector{}
	for _, file := range files {
		var v mergeVector
		readJSON(t, file, &v)
		vectors[filepath.Base(file)] = v
	}
	return vectors
}
