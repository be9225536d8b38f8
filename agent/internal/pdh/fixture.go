package pdh

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseFixture reads a recorded snapshot: one value per line, tab-separated,
//
//	\PhysicalDisk(0 C:)\Disk Reads/sec	<first>	<second>
//	\Memory\Available Bytes	<first>	<second>
//	timebase	\PhysicalDisk\Avg. Disk sec/Read	<ticks per second>
//
// Blank lines and lines starting with # are comments. Tests feed the mapping code from these
// files exactly as Query.Collect feeds it on Windows.
func ParseFixture(r io.Reader) (Snapshot, error) {
	s := Snapshot{Values: map[Counter]map[string]Raw{}, TimeBase: map[Counter]int64{}}
	scanner := bufio.NewScanner(r)
	for line := 1; scanner.Scan(); line++ {
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if err := s.addFixtureLine(fields); err != nil {
			return Snapshot{}, fmt.Errorf("fixture line %d: %w", line, err)
		}
	}
	if err := scanner.Err(); err != nil {
		return Snapshot{}, fmt.Errorf("read fixture: %w", err)
	}
	return s, nil
}

func (s Snapshot) addFixtureLine(fields []string) error {
	if fields[0] == "timebase" {
		if len(fields) != 3 {
			return fmt.Errorf("want timebase<TAB>path<TAB>ticks, got %d fields", len(fields))
		}
		c, _, err := ParsePath(fields[1])
		if err != nil {
			return err
		}
		ticks, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || ticks <= 0 {
			return fmt.Errorf("time base %q: want a positive integer", fields[2])
		}
		s.TimeBase[c] = ticks
		return nil
	}
	if len(fields) != 3 {
		return fmt.Errorf("want path<TAB>first<TAB>second, got %d fields", len(fields))
	}
	c, instance, err := ParsePath(fields[0])
	if err != nil {
		return err
	}
	first, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return fmt.Errorf("first value of %s: %w", fields[0], err)
	}
	second, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return fmt.Errorf("second value of %s: %w", fields[0], err)
	}
	s.put(c, instance, Raw{First: first, Second: second})
	return nil
}

func (s Snapshot) put(c Counter, instance string, v Raw) {
	if s.Values[c] == nil {
		s.Values[c] = map[string]Raw{}
	}
	s.Values[c][instance] = v
}

// ParsePath splits a full counter path, `\Object(Instance)\Counter` or `\Object\Counter`. Counter
// names may hold "/" and "%", never "\"; an instance name may hold parentheses ("0 C: (boot)"),
// so the instance runs from the first "(" to the last ")" of the object part.
func ParsePath(path string) (Counter, string, error) {
	rest, ok := strings.CutPrefix(path, `\`)
	cut := strings.LastIndex(rest, `\`)
	if !ok || cut <= 0 || cut == len(rest)-1 {
		return Counter{}, "", fmt.Errorf(`counter path %q: want \Object(Instance)\Counter or \Object\Counter`, path)
	}
	objectPart, name := rest[:cut], rest[cut+1:]
	open := strings.Index(objectPart, "(")
	if open < 0 || !strings.HasSuffix(objectPart, ")") {
		return Counter{Object: objectPart, Name: name}, NoInstance, nil
	}
	if open == 0 {
		return Counter{}, "", fmt.Errorf("counter path %q: no object before the instance", path)
	}
	return Counter{Object: objectPart[:open], Name: name}, objectPart[open+1 : len(objectPart)-1], nil
}
