// Package deploycheck renders the Helm chart and reads the compose file the way their tools
// would, and decodes every object strictly into its schema types, so a typo in a field name, a
// probe on a port that does not exist or a Service selecting nothing fails the suite without a
// cluster, Docker or a downloaded binary.
package deploycheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Manifests are the objects of one rendered chart, by kind.
type Manifests struct {
	Deployments     []appsv1.Deployment
	Services        []corev1.Service
	ServiceAccounts []corev1.ServiceAccount
	Jobs            []batchv1.Job
	DaemonSets      []appsv1.DaemonSet
	ConfigMaps      []corev1.ConfigMap
	Secrets         []corev1.Secret
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Decode splits rendered templates into documents and decodes each strictly into the
// k8s.io/api type its apiVersion and kind name: unknown fields and unknown kinds are errors.
func Decode(rendered map[string]string) (Manifests, error) {
	var m Manifests
	for name, text := range rendered {
		if strings.HasSuffix(name, "NOTES.txt") || strings.HasSuffix(name, ".tpl") {
			continue
		}
		for i, doc := range strings.Split(text, "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(doc), "---")) == "" {
				continue
			}
			if err := m.add([]byte(doc)); err != nil {
				return m, fmt.Errorf("%s, document %d: %w", name, i+1, err)
			}
		}
	}
	return m, nil
}

func (m *Manifests) add(doc []byte) error {
	data, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	var meta typeMeta
	if err := json.Unmarshal(data, &meta); err != nil {
		return err
	}
	switch meta.APIVersion + "/" + meta.Kind {
	case "apps/v1/Deployment":
		var d appsv1.Deployment
		err = strict(data, &d)
		m.Deployments = append(m.Deployments, d)
	case "v1/Service":
		var s corev1.Service
		err = strict(data, &s)
		m.Services = append(m.Services, s)
	case "v1/ServiceAccount":
		var s corev1.ServiceAccount
		err = strict(data, &s)
		m.ServiceAccounts = append(m.ServiceAccounts, s)
	case "batch/v1/Job":
		var j batchv1.Job
		err = strict(data, &j)
		m.Jobs = append(m.Jobs, j)
	case "apps/v1/DaemonSet":
		var d appsv1.DaemonSet
		err = strict(data, &d)
		m.DaemonSets = append(m.DaemonSets, d)
	case "v1/ConfigMap":
		var c corev1.ConfigMap
		err = strict(data, &c)
		m.ConfigMaps = append(m.ConfigMaps, c)
	case "v1/Secret":
		var s corev1.Secret
		err = strict(data, &s)
		m.Secrets = append(m.Secrets, s)
	default:
		return fmt.Errorf("unexpected object %s %s: add it to deploycheck.Decode with its schema type", meta.APIVersion, meta.Kind)
	}
	return err
}

// strict decodes JSON into out, refusing fields out's type does not have.
func strict(data []byte, out any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(out); err != nil {
		return fmt.Errorf("does not match its schema: %w", err)
	}
	return nil
}
