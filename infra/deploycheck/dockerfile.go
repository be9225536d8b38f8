package deploycheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Instruction is one Dockerfile instruction: its keyword in upper case and the rest of its
// line, continuation lines joined.
type Instruction struct {
	Keyword string
	Args    string
	Line    int
}

// ParseDockerfile reads a Dockerfile's instructions the way the builder splits them (comments
// and blank lines dropped, lines ending in a backslash joined), without a container engine.
func ParseDockerfile(path string) ([]Instruction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Instruction
	var pending strings.Builder
	start := 0
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if pending.Len() == 0 {
			start = n
		} else {
			pending.WriteByte(' ')
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending.WriteString(strings.TrimSpace(cont))
			continue
		}
		pending.WriteString(line)
		keyword, args, _ := strings.Cut(pending.String(), " ")
		out = append(out, Instruction{Keyword: strings.ToUpper(keyword), Args: strings.TrimSpace(args), Line: start})
		pending.Reset()
	}
	if pending.Len() > 0 {
		return nil, fmt.Errorf("%s: ends inside a continued line", path)
	}
	return out, scanner.Err()
}

// FinalStage is the instructions of the last stage: what the image is.
func FinalStage(instructions []Instruction) []Instruction {
	for i := len(instructions) - 1; i >= 0; i-- {
		if instructions[i].Keyword == "FROM" {
			return instructions[i:]
		}
	}
	return instructions
}

// ExecForm decodes an ENTRYPOINT or CMD in exec (JSON array) form; the shell form is an error,
// since it would run through /bin/sh, which a minimal image does not have.
func ExecForm(in Instruction) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(in.Args), &argv); err != nil {
		return nil, fmt.Errorf("line %d: %s %s is not in exec form [\"…\"]: %w", in.Line, in.Keyword, in.Args, err)
	}
	return argv, nil
}
