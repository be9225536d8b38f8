package deploycheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const chartDir = "../helm/spindle"

func render(t *testing.T, valuesFiles ...string) Manifests {
	t.Helper()
	rendered, err := Render(chartDir, valuesFiles...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(rendered)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every values file the chart ships: its defaults, and the samples in ci/ that CI renders.
func valueSets(t *testing.T) map[string][]string {
	sets := map[string][]string{"defaults": nil}
	samples, err := filepath.Glob(filepath.Join(chartDir, "ci", "*.yaml"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no sample values in %s/ci: %v", chartDir, err)
	}
	for _, file := range samples {
		sets[filepath.Base(file)] = []string{file}
	}
	return sets
}

func TestChartRendersValidManifests(t *testing.T) {
	for name, files := range valueSets(t) {
		t.Run(name, func(t *testing.T) {
			m := render(t, files...)
			components := map[string]bool{}
			for _, d := range m.Deployments {
				components[d.Labels["app.kubernetes.io/component"]] = true
				checkDeployment(t, m, d.Name, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels, d.Spec.Template.Spec)
			}
			for _, want := range []string{"gateway", "console", "worker"} {
				if !components[want] {
					t.Errorf("no %s Deployment", want)
				}
			}
			for _, s := range m.Services {
				checkServiceTargets(t, m, s)
			}
			for _, j := range m.Jobs {
				for _, c := range j.Spec.Template.Spec.Containers {
					checkDatabaseFromSecret(t, j.Name, c)
				}
			}
		})
	}
}

func checkDeployment(t *testing.T, m Manifests, name string, selector, labels map[string]string, pod corev1.PodSpec) {
	t.Helper()
	for key, value := range selector {
		if labels[key] != value {
			t.Errorf("%s: selector %s=%s does not match its pod template", name, key, value)
		}
	}
	if pod.ServiceAccountName == "" {
		t.Errorf("%s: no service account", name)
	} else if !hasServiceAccount(m, pod.ServiceAccountName) && !strings.HasPrefix(pod.ServiceAccountName, "existing-") {
		// An account the chart does not create is the operator's; ci/*.yaml name theirs existing-….
		t.Errorf("%s: service account %q is neither rendered nor named as an existing one", name, pod.ServiceAccountName)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("%s: mounts a Kubernetes API token it never uses", name)
	}
	for _, c := range pod.Containers {
		where := name + "/" + c.Name
		if c.ReadinessProbe == nil || c.LivenessProbe == nil {
			t.Errorf("%s: needs a readiness and a liveness probe", where)
			continue
		}
		for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if probe.HTTPGet == nil || !hasPort(c, probe.HTTPGet.Port) {
				t.Errorf("%s: probe %+v is not an HTTP GET on a declared port", where, probe.ProbeHandler)
			}
		}
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
			t.Errorf("%s: needs CPU and memory requests and a memory limit", where)
		}
		if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
			t.Errorf("%s: root file system is writable", where)
		}
		checkDatabaseFromSecret(t, where, c)
		for _, mount := range c.VolumeMounts {
			if !hasVolume(pod, mount.Name) {
				t.Errorf("%s: mounts volume %q the pod does not have", where, mount.Name)
			}
		}
	}
}

// The database URL holds a password: it comes from the operator's Secret, never a literal.
func checkDatabaseFromSecret(t *testing.T, where string, c corev1.Container) {
	t.Helper()
	for _, env := range c.Env {
		if env.Name == "DATABASE_URL" {
			if env.Value != "" || env.ValueFrom == nil || env.ValueFrom.SecretKeyRef == nil {
				t.Errorf("%s: DATABASE_URL is not read from a Secret", where)
			}
			return
		}
	}
	t.Errorf("%s: no DATABASE_URL", where)
}

func checkServiceTargets(t *testing.T, m Manifests, s corev1.Service) {
	t.Helper()
	for _, d := range m.Deployments {
		if !selects(s.Spec.Selector, d.Spec.Template.Labels) {
			continue
		}
		for _, port := range s.Spec.Ports {
			for _, c := range d.Spec.Template.Spec.Containers {
				if hasPort(c, port.TargetPort) {
					return
				}
			}
			t.Errorf("service %s: target port %s is on no container of %s", s.Name, port.TargetPort.String(), d.Name)
		}
		return
	}
	t.Errorf("service %s selects no Deployment", s.Name)
}

func selects(selector, labels map[string]string) bool {
	for key, value := range selector {
		if labels[key] != value {
			return false
		}
	}
	return len(selector) > 0
}

func hasPort(c corev1.Container, port intstr.IntOrString) bool {
	for _, p := range c.Ports {
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
			return true
		}
	}
	return false
}

func hasVolume(pod corev1.PodSpec, name string) bool {
	for _, v := range pod.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

func hasServiceAccount(m Manifests, name string) bool {
	for _, s := range m.ServiceAccounts {
		if s.Name == name {
			return true
		}
	}
	return false
}

// The check itself must catch what it is for: a misspelt field fails the strict decode.
func TestDecodeRefusesUnknownFields(t *testing.T) {
	_, err := Decode(map[string]string{"x.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replica: 2\n"})
	if err == nil || !strings.Contains(err.Error(), `unknown field "replica"`) {
		t.Fatalf("a misspelt field was accepted: %v", err)
	}
	_, err = Decode(map[string]string{"x.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"})
	if err == nil {
		t.Fatal("an object of a kind the chart does not declare was accepted")
	}
}

func TestChartRefusesValuesItCannotRun(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("database:\n  existingSecret: \"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(chartDir, bad); err == nil || !strings.Contains(err.Error(), "database.existingSecret") {
		t.Fatalf("a release without a database Secret rendered: %v", err)
	}
}

// secretOf is the Secret and key a container's variable is read from ("" when it is not).
func secretOf(c corev1.Container, variable string) string {
	for _, env := range c.Env {
		if env.Name == variable && env.ValueFrom != nil && env.ValueFrom.SecretKeyRef != nil {
			return env.ValueFrom.SecretKeyRef.Name + "/" + env.ValueFrom.SecretKeyRef.Key
		}
	}
	return ""
}

// Each service logs in with its own login's Secret; migrations always run as the schema's owner.
func TestDatabaseSecretPerService(t *testing.T) {
	m := render(t, filepath.Join(chartDir, "ci", "sample-values.yaml"))
	want := map[string]string{"gateway": "spindle-gateway-db/url", "worker": "spindle-worker-db/url", "console": "spindle-console-database/url"}
	for _, d := range m.Deployments {
		component := d.Labels["app.kubernetes.io/component"]
		if got := secretOf(d.Spec.Template.Spec.Containers[0], "DATABASE_URL"); got != want[component] {
			t.Errorf("%s reads the database URL from %q, want %q", component, got, want[component])
		}
	}
	if len(m.Jobs) != 1 || secretOf(m.Jobs[0].Spec.Template.Spec.Containers[0], "DATABASE_URL") != "spindle-db-url/DATABASE_URL" {
		t.Errorf("the migration job must use the release's (owner's) database Secret")
	}
}

// With every values file the chart ships, no service logs in as the schema's owner (row-level
// security does not hold the owner), and the migration Job reads each service's URL from the
// service's own Secret, to set that login's password from it.
func TestServicesNeverLogInAsTheOwner(t *testing.T) {
	for name, files := range valueSets(t) {
		t.Run(name, func(t *testing.T) {
			m := render(t, files...)
			if len(m.Jobs) != 1 {
				t.Fatalf("want one migration Job, got %d", len(m.Jobs))
			}
			job := m.Jobs[0].Spec.Template.Spec.Containers[0]
			owner := secretOf(job, "DATABASE_URL")
			for _, d := range m.Deployments {
				component := d.Labels["app.kubernetes.io/component"]
				own := secretOf(d.Spec.Template.Spec.Containers[0], "DATABASE_URL")
				if own == "" || own == owner {
					t.Errorf("%s logs in with %q, the schema owner's Secret; give it spindle_%s_login's", component, own, component)
				}
				variable := "SPINDLE_" + strings.ToUpper(component) + "_DATABASE_URL"
				if got := secretOf(job, variable); got != own {
					t.Errorf("the migration Job's %s comes from %q, the %s's DATABASE_URL from %q", variable, got, component, own)
				}
			}
		})
	}
}

func TestChartRefusesAServiceWithTheOwnersLogin(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "owner.yaml")
	if err := os.WriteFile(bad, []byte("console:\n  database: { existingSecret: spindle-database, key: url }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(chartDir, bad); err == nil || !strings.Contains(err.Error(), "console.database is the schema owner's Secret") {
		t.Fatalf("a console logging in as the owner rendered: %v", err)
	}
}
