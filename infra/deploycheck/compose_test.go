package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const composeDir = "../compose"

func TestComposeFileHasAWorkableShape(t *testing.T) {
	path := filepath.Join(composeDir, "compose.yaml")
	file, err := ReadCompose(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timescaledb", "migrate", "gateway", "worker", "console", "grafana"} {
		if _, ok := file.Services[want]; !ok {
			t.Errorf("no %s service", want)
		}
	}
	conditions := map[string]bool{"service_started": true, "service_healthy": true, "service_completed_successfully": true}
	for name, s := range file.Services {
		if s.Image == "" {
			t.Errorf("%s: no image", name)
		}
		for target, dep := range s.DependsOn {
			other, ok := file.Services[target]
			switch {
			case !ok:
				t.Errorf("%s depends on %s, which is not a service", name, target)
			case !conditions[dep.Condition]:
				t.Errorf("%s: depends_on %s has condition %q", name, target, dep.Condition)
			case dep.Condition == "service_healthy" && other.Healthcheck == nil:
				t.Errorf("%s waits for %s to be healthy, which has no healthcheck", name, target)
			}
		}
		for _, volume := range s.Volumes {
			source := strings.SplitN(volume, ":", 2)[0]
			if strings.HasPrefix(source, ".") || strings.HasPrefix(source, "/") {
				if _, err := os.Stat(filepath.Join(composeDir, source)); err != nil {
					t.Errorf("%s mounts %s, which does not exist", name, source)
				}
			} else if _, declared := file.Volumes[source]; !declared {
				t.Errorf("%s mounts volume %q, which is not declared", name, source)
			}
		}
		if s.Build == nil {
			continue
		}
		// Spindle's own services: built from the repository, checked, and given the database.
		if _, err := os.Stat(filepath.Join(composeDir, s.Build.Context, s.Build.Dockerfile)); err != nil {
			t.Errorf("%s builds from %s, which does not exist", name, s.Build.Dockerfile)
		}
		if s.Environment["DATABASE_URL"] == "" {
			t.Errorf("%s: no DATABASE_URL", name)
		}
		if name == "migrate" {
			if s.Restart != "no" {
				t.Errorf("migrate runs once: restart must be \"no\", not %q", s.Restart)
			}
			continue
		}
		if s.Healthcheck == nil || len(s.Healthcheck.Test) < 2 || s.Healthcheck.Test[0] != "CMD" {
			t.Errorf("%s: needs a healthcheck", name)
		}
		if s.DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("%s must start only after the migrations succeeded", name)
		}
	}
}

// Every variable the compose file reads is in env.example, so an operator sees all they can set.
func TestComposeVariablesAreDocumented(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(composeDir, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(composeDir, "env.example"))
	if err != nil {
		t.Fatal(err)
	}
	for _, match := range regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)`).FindAllStringSubmatch(string(text), -1) {
		if match[1] == "SPINDLE_IMAGE" {
			continue // which image to run instead of building one: documented in docs/install.md
		}
		if !regexp.MustCompile(`(?m)^` + match[1] + `=`).Match(example) {
			t.Errorf("compose.yaml reads ${%s}, which env.example does not list", match[1])
		}
	}
}

func TestReadComposeRefusesUnknownFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(path, []byte("services:\n  x:\n    image: a\n    helthcheck: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCompose(path); err == nil || !strings.Contains(err.Error(), `unknown field "helthcheck"`) {
		t.Fatalf("a misspelt field was accepted: %v", err)
	}
}

// Only the migrations log in as the schema's owner; every service logs in as the login the
// migrations make for it (holding only its role, so row-level security holds for all it runs),
// and the migrations get each service's exact URL, from which they set that login's password.
func TestComposeServicesLogInAsTheirOwnRole(t *testing.T) {
	file, err := ReadCompose(filepath.Join(composeDir, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	owner := file.Services["timescaledb"].Environment["POSTGRES_USER"]
	if owner == "" {
		t.Fatal("timescaledb: no POSTGRES_USER, the schema's owner")
	}
	migrate := file.Services["migrate"]
	if got := databaseUser(t, migrate.Environment["DATABASE_URL"]); got != owner {
		t.Errorf("migrate logs in as %q; the migrations run as the schema's owner %q", got, owner)
	}
	for _, service := range []string{"console", "gateway", "worker"} {
		url := file.Services[service].Environment["DATABASE_URL"]
		if got, want := databaseUser(t, url), "spindle_"+service+"_login"; got != want {
			t.Errorf("%s logs in as %q; it must log in as %s, never as the owner %q", service, got, want, owner)
		}
		variable := "SPINDLE_" + strings.ToUpper(service) + "_DATABASE_URL"
		if migrate.Environment[variable] != url {
			t.Errorf("migrate's %s must be the %s's DATABASE_URL (it sets the login's password from it)", variable, service)
		}
	}
}

// databaseUser is the user of a postgres:// URL whose password may be a ${VARIABLE}.
func databaseUser(t *testing.T, url string) string {
	t.Helper()
	match := regexp.MustCompile(`^postgres(?:ql)?://([^:@/]+)[:@]`).FindStringSubmatch(url)
	if match == nil {
		t.Errorf("%q is not a postgres:// URL with a user", url)
		return ""
	}
	return match[1]
}
