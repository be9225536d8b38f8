package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse validates a policy document (JSON, as pushed over OpAMP) and applies every default.
// A refused policy returns a *ValidationError whose problems, codes and paths are exactly those
// the console computes: first the document's shape, then, only if the shape is right, the
// cross-field rules.
func Parse(data []byte) (Policy, error) {
	document, err := decodeJSON(data)
	if err != nil {
		return Policy{}, &ValidationError{Problems: []Problem{{
			Code: CodeInvalidJSON, Message: "is not valid JSON: " + err.Error(),
		}}}
	}
	d := &decoder{}
	policy := d.policy(document)
	if len(d.problems) == 0 {
		d.problems = ruleProblems(policy)
	}
	if len(d.problems) > 0 {
		return Policy{}, &ValidationError{Problems: sortProblems(d.problems)}
	}
	return policy, nil
}

// decodeJSON reads exactly one JSON value, keeping numbers as written so that their checks
// follow JavaScript's reading of them.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var document any
	if err := dec.Decode(&document); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the document is empty")
		}
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return document, nil
}

// decoder walks the generic JSON tree the way the zod schema does, collecting problems.
type decoder struct {
	problems []Problem
}

func (d *decoder) add(at location, code Code, message string) {
	d.problems = append(d.problems, Problem{Path: at.String(), Code: code, Message: message})
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func (d *decoder) wrongType(at location, expected string, v any) {
	d.add(at, CodeInvalidType, fmt.Sprintf("must be %s, not %s", expected, jsonTypeName(v)))
}

// object checks that v is an object with only the given fields.
func (d *decoder) object(at location, v any, fields ...string) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		d.wrongType(at, "an object", v)
		return nil, false
	}
	for name := range obj {
		if !slices.Contains(fields, name) {
			d.add(at.key(name), CodeUnknownField,
				"is not a policy field: check its spelling and section against the policy reference")
		}
	}
	return obj, true
}

// section decodes an optional object field with fill; an absent section keeps its defaults.
func (d *decoder) section(obj map[string]any, at location, name string, fields []string, fill func(map[string]any, location)) {
	v, present := obj[name]
	if !present {
		return
	}
	if inner, ok := d.object(at.key(name), v, fields...); ok {
		fill(inner, at.key(name))
	}
}

func (d *decoder) boolean(obj map[string]any, at location, name string, into *bool) {
	v, present := obj[name]
	if !present {
		return
	}
	b, ok := v.(bool)
	if !ok {
		d.wrongType(at.key(name), "a boolean", v)
		return
	}
	*into = b
}

// integer reads a whole number in [low, high]. Like JavaScript, it reads the number as a
// float64 first, so 1e3 and 1000.0 are whole numbers and 1e400 is not a number at all.
func (d *decoder) integer(at location, name string, v any, low, high int64) (int64, bool) {
	number, ok := v.(json.Number)
	if !ok {
		d.wrongType(at, "a number", v)
		return 0, false
	}
	f, err := strconv.ParseFloat(string(number), 64)
	if err != nil || math.IsInf(f, 0) {
		d.add(at, CodeInvalidType, "must be a number, not a number too large to represent")
		return 0, false
	}
	switch {
	case f != math.Trunc(f):
		d.add(at, CodeNotInteger, "must be a whole number")
	case f < float64(low):
		d.add(at, CodeTooSmall, "must be at least "+formatLimit(name, low))
	case f > float64(high):
		d.add(at, CodeTooBig, "must be at most "+formatLimit(name, high))
	default:
		return int64(f), true
	}
	return 0, false
}

func (d *decoder) integerField(obj map[string]any, at location, name string, low, high int64, into *int64) {
	if v, present := obj[name]; present {
		if n, ok := d.integer(at.key(name), name, v, low, high); ok {
			*into = n
		}
	}
}

// list checks that v is an array of at most max entries. Like zod, an overlong list reports
// only its length, not its entries.
func (d *decoder) list(at location, v any, max int) ([]any, bool) {
	items, ok := v.([]any)
	if !ok {
		d.wrongType(at, "an array", v)
		return nil, false
	}
	if len(items) > max {
		d.add(at, CodeTooBig, fmt.Sprintf("must have at most %d entries", max))
		return nil, false
	}
	return items, true
}

func (d *decoder) pathString(at location, v any, kind PathKind) (string, bool) {
	s, ok := v.(string)
	if !ok {
		d.wrongType(at, "a string", v)
		return "", false
	}
	if code := pathProblem(s, kind); code != "" {
		d.add(at, code, pathMessages[code])
		return "", false
	}
	return s, true
}

func (d *decoder) pathList(obj map[string]any, at location, name string, kind PathKind, max int, into *[]string) {
	v, present := obj[name]
	if !present {
		return
	}
	items, ok := d.list(at.key(name), v, max)
	if !ok {
		return
	}
	paths := make([]string, 0, len(items))
	for i, item := range items {
		if s, ok := d.pathString(at.key(name).index(i), item, kind); ok {
			paths = append(paths, s)
		}
	}
	*into = paths
}

var pathMessages = map[Code]string{
	CodePathTooLong:     "is longer than 4096 bytes",
	CodeBackslashInPath: `contains "\": write Windows paths with forward slashes, e.g. "D:/SQLData/*.mdf"`,
	CodeNotAbsolutePath: `must be an absolute path starting with "/" (or a drive such as "D:/" on Windows)`,
	CodePathNotClean:    `must be a clean path: no empty, "." or ".." segments, no trailing "/", no control characters`,
	CodeInvalidGlob: `is not a valid pattern: "**" must be a whole segment, and each "[" needs a closing "]" ` +
		`around at least one character or range such as a-z`,
	CodeGlobTooComplex: `has too many wildcards: at most 8 "**" segments and 32 "*", "?" or "[…]" in one pattern; ` +
		`split it into several patterns`,
	CodeGlobNotAllowed: `must be a plain path, not a pattern: remove "*", "?" and "["`,
}

func (d *decoder) enum(obj map[string]any, at location, name string, allowed []string, into *string) {
	v, present := obj[name]
	if !present {
		return
	}
	s, ok := v.(string)
	if !ok || !slices.Contains(allowed, s) {
		quoted := make([]string, len(allowed))
		for i, a := range allowed {
			quoted[i] = strconv.Quote(a)
		}
		d.add(at.key(name), CodeInvalidValue, "must be one of "+strings.Join(quoted, ", "))
		return
	}
	*into = s
}
