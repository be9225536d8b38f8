package deploycheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const agentSample = "../helm/spindle/ci/agent-values.yaml"

// The agent DaemonSet is opt-in: it needs a token from a running console and privileges on
// every node, so a release without agent.enabled renders none of its objects.
func TestAgentIsOffByDefault(t *testing.T) {
	m := render(t)
	if len(m.DaemonSets) != 0 || len(m.ConfigMaps) != 0 || len(m.Secrets) != 0 {
		t.Fatalf("the defaults render %d DaemonSets, %d ConfigMaps, %d Secrets", len(m.DaemonSets), len(m.ConfigMaps), len(m.Secrets))
	}
}

func agentDaemonSet(t *testing.T, m Manifests) appsv1.DaemonSet {
	t.Helper()
	if len(m.DaemonSets) != 1 {
		t.Fatalf("want one DaemonSet, got %d", len(m.DaemonSets))
	}
	return m.DaemonSets[0]
}

func TestAgentDaemonSetHasWhatEBPFNeeds(t *testing.T) {
	m := render(t, agentSample)
	ds := agentDaemonSet(t, m)
	pod := ds.Spec.Template.Spec
	checkAgentPod(t, m, ds)
	if !pod.HostPID {
		t.Error("hostPID is off: the eBPF programs' process attribution needs the host's pids")
	}
	if pod.HostNetwork {
		t.Error("hostNetwork is on: the agent only dials the gateway")
	}
	if pod.PriorityClassName != "system-node-critical" {
		t.Errorf("priorityClassName %q, want the sample's system-node-critical", pod.PriorityClassName)
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || (sc.Privileged != nil && *sc.Privileged) {
		t.Fatalf("want capabilities, not privileged: %+v", sc)
	}
	var added []string
	for _, capability := range sc.Capabilities.Add {
		added = append(added, string(capability))
	}
	// Exactly these (docs/install.md, "Agents on Kubernetes nodes", says why each): one more
	// is a privilege nobody reviewed.
	want := []string{"BPF", "DAC_OVERRIDE", "DAC_READ_SEARCH", "IPC_LOCK", "PERFMON", "SYS_ADMIN", "SYS_RESOURCE"}
	if slices.Sort(added); !slices.Equal(added, want) {
		t.Errorf("capabilities %v, want %v", added, want)
	}
	if len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("drops %v, want ALL before adding", sc.Capabilities.Drop)
	}
	if sc.RunAsUser == nil || *sc.RunAsUser != 0 {
		t.Error("eBPF needs root: runAsUser 0")
	}
	if !slices.Equal(c.Args, []string{"run", "--config", "/etc/spindle/agent.yaml"}) || len(c.Command) != 0 {
		t.Errorf("command %v args %v: want the image's entrypoint with run --config /etc/spindle/agent.yaml", c.Command, c.Args)
	}

	hostPaths := map[string]string{}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, mount := range c.VolumeMounts {
		mounts[mount.MountPath] = mount
	}
	for path, want := range map[string]struct {
		host     string
		readOnly bool
	}{
		"/sys/kernel/debug": {"/sys/kernel/debug", true}, "/sys/kernel/tracing": {"/sys/kernel/tracing", true},
		"/sys/fs/bpf": {"/sys/fs/bpf", true}, "/host/proc": {"/proc", true}, "/host/sys": {"/sys", true},
		"/host/root": {"/", true}, "/var/lib/spindle": {"/var/lib/spindle-agent", false},
		"/var/lib/postgresql": {"/var/lib/postgresql", true}, "/srv/pg": {"/srv/pg", false},
	} {
		mount, ok := mounts[path]
		if !ok {
			t.Errorf("nothing mounted at %s", path)
			continue
		}
		if hostPaths[mount.Name] != want.host || mount.ReadOnly != want.readOnly {
			t.Errorf("%s: host path %q read-only %v, want %q read-only %v", path, hostPaths[mount.Name], mount.ReadOnly, want.host, want.readOnly)
		}
	}

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["SPINDLE_HOSTNAME"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("SPINDLE_HOSTNAME is not the node's name from the downward API: %+v", e)
	}
	if env["SPINDLE_INSTALL_METHOD"].Value != "kubernetes" {
		t.Error("SPINDLE_INSTALL_METHOD is not kubernetes: the agent would try to replace the binary in its image")
	}
	token := mounts["/etc/spindle/enrolment"]
	for _, v := range pod.Volumes {
		if v.Name == token.Name && (v.Secret == nil || v.Secret.SecretName != "spindle-agent-enrolment" || len(v.Secret.Items) != 1 || v.Secret.Items[0].Path != "token") {
			t.Errorf("the token is not the operator's Secret mounted as token: %+v", v.VolumeSource)
		}
	}
	if len(m.Secrets) != 0 {
		t.Error("an existing Secret is named, yet the chart renders one")
	}
}

// What every pod of the chart has (checkDeployment), less the probes and the database: the agent
// reports over OpAMP, so the console shows a node whose agent stops, and the restart policy
// brings it back; a probe would add nothing.
func checkAgentPod(t *testing.T, m Manifests, ds appsv1.DaemonSet) {
	t.Helper()
	pod := ds.Spec.Template.Spec
	if !selects(ds.Spec.Selector.MatchLabels, ds.Spec.Template.Labels) {
		t.Error("the selector does not match the pod template")
	}
	if !hasServiceAccount(m, pod.ServiceAccountName) {
		t.Errorf("service account %q is not rendered", pod.ServiceAccountName)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("mounts a Kubernetes API token it never uses")
	}
	for _, c := range pod.Containers {
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
			t.Errorf("%s: needs CPU and memory requests and a memory limit", c.Name)
		}
		if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
			t.Errorf("%s: root file system is writable", c.Name)
		}
		for _, mount := range c.VolumeMounts {
			if !hasVolume(pod, mount.Name) {
				t.Errorf("%s: mounts volume %q the pod does not have", c.Name, mount.Name)
			}
		}
	}
}

// renderValues renders the chart with the given values as a values file.
func renderValues(t *testing.T, values string) (Manifests, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	rendered, err := Render(chartDir, path)
	if err != nil {
		return Manifests{}, err
	}
	return Decode(rendered)
}

// agent.only renders the agent alone, for nodes reporting to a Spindle run elsewhere: no
// database Secret is named, and the token given in values becomes the chart's own Secret.
func TestAgentOnlyWithAChartCreatedToken(t *testing.T) {
	m, err := renderValues(t, "database: { existingSecret: \"\" }\nagent: { enabled: true, only: true, gatewayUrl: https://gw.example.com, enrolmentToken: { token: spe_abc } }\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Deployments)+len(m.Jobs)+len(m.Services) != 0 || len(m.ServiceAccounts) != 1 {
		t.Fatalf("agent.only renders %d Deployments, %d Jobs, %d Services, %d ServiceAccounts", len(m.Deployments), len(m.Jobs), len(m.Services), len(m.ServiceAccounts))
	}
	ds := agentDaemonSet(t, m)
	if len(m.Secrets) != 1 || m.Secrets[0].StringData["token"] != "spe_abc" {
		t.Fatalf("no chart-made Secret with the token: %+v", m.Secrets)
	}
	var secretName string
	for _, v := range ds.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			secretName = v.Secret.SecretName
		}
	}
	if secretName != m.Secrets[0].Name {
		t.Errorf("the DaemonSet mounts Secret %q, the chart made %q", secretName, m.Secrets[0].Name)
	}
	if len(m.ConfigMaps) != 1 || !strings.Contains(m.ConfigMaps[0].Data["agent.yaml"], "gateway: https://gw.example.com\n") {
		t.Errorf("agent.yaml does not name the gateway: %+v", m.ConfigMaps)
	}
}

func TestAgentPrivilegeSwitches(t *testing.T) {
	m, err := renderValues(t, "agent: { enabled: true, privileged: true }\n")
	if err != nil {
		t.Fatal(err)
	}
	sc := agentDaemonSet(t, m).Spec.Template.Spec.Containers[0].SecurityContext
	if sc.Privileged == nil || !*sc.Privileged || sc.Capabilities != nil {
		t.Errorf("agent.privileged: got %+v", sc)
	}
	m, err = renderValues(t, "agent: { enabled: true, sysAdmin: false }\n")
	if err != nil {
		t.Fatal(err)
	}
	sc = agentDaemonSet(t, m).Spec.Template.Spec.Containers[0].SecurityContext
	if slices.Contains(sc.Capabilities.Add, "SYS_ADMIN") || !slices.Contains(sc.Capabilities.Add, "BPF") {
		t.Errorf("agent.sysAdmin false still adds %v", sc.Capabilities.Add)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("without SYS_ADMIN nor privileged, privilege escalation should be off")
	}
}

func TestAgentValuesItCannotRunAreRefused(t *testing.T) {
	for values, want := range map[string]string{
		"agent: { enabled: true, enrolmentToken: { token: spa_credential } }\n": "must be an enrolment token",
		"agent: { enabled: true, managedPaths: [srv/pg] }\n":                    "clean absolute directory",
		"agent: { enabled: true, fragmentationPaths: [/srv/../etc] }\n":         "clean absolute directory",
		"gatewayUrl: \"\"\nagent: { enabled: true, only: true }\n":              "the gateway the agents enrol with",
	} {
		if _, err := renderValues(t, values); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error saying %q", values, err, want)
		}
	}
}

// The sample's agent.yaml is kept in testdata, and the agent's own tests parse that file with
// the agent's strict config parser (agent/cmd/spindle-agent/container_test.go): a key the
// chart writes that the agent does not know fails there. After changing the chart's agent.yaml,
// refresh it: SPINDLE_UPDATE_GOLDEN=1 go test ./deploycheck/ -run TestAgentConfigIsTheOneTheAgentParses
func TestAgentConfigIsTheOneTheAgentParses(t *testing.T) {
	m := render(t, agentSample)
	if len(m.ConfigMaps) != 1 {
		t.Fatalf("want one ConfigMap, got %d", len(m.ConfigMaps))
	}
	got := m.ConfigMaps[0].Data["agent.yaml"]
	const golden = "testdata/agent-sample.agent.yaml"
	if os.Getenv("SPINDLE_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the chart's agent.yaml changed; refresh %s (see this test's comment) and run the agent's tests:\n%s", golden, got)
	}
}
