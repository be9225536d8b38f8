package deploycheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const agentDockerfile = "../docker/agent.Dockerfile"

func last(stage []Instruction, keyword string) (Instruction, bool) {
	for i := len(stage) - 1; i >= 0; i-- {
		if stage[i].Keyword == keyword {
			return stage[i], true
		}
	}
	return Instruction{}, false
}

// The image the DaemonSet runs: its entrypoint is the binary the build stage copies in, its
// command the DaemonSet's arguments, and it says how it was installed.
func TestAgentImageMatchesTheChart(t *testing.T) {
	all, err := ParseDockerfile(agentDockerfile)
	if err != nil {
		t.Fatal(err)
	}
	final := FinalStage(all)
	if !strings.HasPrefix(final[0].Args, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s: want a static base with nothing but the binary", final[0].Args)
	}
	entry, ok := last(final, "ENTRYPOINT")
	if !ok {
		t.Fatal("no ENTRYPOINT")
	}
	entrypoint, err := ExecForm(entry)
	if err != nil {
		t.Fatal(err)
	}
	if len(entrypoint) != 1 {
		t.Fatalf("ENTRYPOINT %v: want the binary alone, the chart passes the command", entrypoint)
	}
	var copied bool
	for _, in := range final {
		if in.Keyword == "COPY" && strings.HasPrefix(in.Args, "--from=") && strings.HasSuffix(in.Args, " "+entrypoint[0]) {
			copied = true
		}
	}
	if !copied {
		t.Errorf("ENTRYPOINT %s is not what the final stage copies from the build", entrypoint[0])
	}
	build := strings.Join(argsOf(all, "RUN"), " ")
	if !strings.Contains(build, "CGO_ENABLED=0") || !strings.Contains(build, "-X main.version=") || !strings.Contains(build, "./cmd/spindle-agent") {
		t.Errorf("the build is not a static, versioned build of ./cmd/spindle-agent: %s", build)
	}
	cmdIn, ok := last(final, "CMD")
	if !ok {
		t.Fatal("no CMD")
	}
	cmd, err := ExecForm(cmdIn)
	if err != nil {
		t.Fatal(err)
	}
	ds := agentDaemonSet(t, render(t, agentSample))
	if args := ds.Spec.Template.Spec.Containers[0].Args; !slices.Equal(cmd, args) {
		t.Errorf("image CMD %v, DaemonSet args %v: one command line for both", cmd, args)
	}
	if !slices.Contains(argsOf(final, "ENV"), "SPINDLE_INSTALL_METHOD=container") {
		t.Error("the image does not set SPINDLE_INSTALL_METHOD: an agent run from it would replace its own binary")
	}
	if _, ok := last(final, "USER"); ok {
		t.Error("USER is set: eBPF and reading every file for fragmentation scans need root")
	}
}

func argsOf(instructions []Instruction, keyword string) []string {
	var out []string
	for _, in := range instructions {
		if in.Keyword == keyword {
			out = append(out, in.Args)
		}
	}
	return out
}

func TestParseDockerfileJoinsContinuedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Dockerfile")
	text := "# comment\nFROM a AS b\nRUN one \\\n  && two\n\ncmd [\"x\"]\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ParseDockerfile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Instruction{{"FROM", "a AS b", 2}, {"RUN", "one && two", 3}, {"CMD", `["x"]`, 6}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := ExecForm(Instruction{Keyword: "CMD", Args: "run --config x"}); err == nil {
		t.Error("a shell-form CMD was accepted")
	}
	if err := os.WriteFile(path, []byte("RUN a \\\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseDockerfile(path); err == nil {
		t.Error("a file ending inside a continued line was accepted")
	}
}
