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
		return decodeInto(data, &m.Deployments)
	case "v1/Service":
		return decodeInto(data, &m.Services)
	case "v1/ServiceAccount":
		return decodeInto(data, &m.ServiceAccounts)
	case "batch/v1/Job":
		return decodeInto(data, &m.Jobs)
	case "apps/v1/DaemonSet":
		return decodeInto(data, &m.DaemonSets)
	case "v1/ConfigMap":
		return decodeInto(data, &m.ConfigMaps)
	case "v1/Secret":
		return decodeInto(data, &m.Secrets)
	default:
		return fmt.Errorf("unexpected object %s %s: add it to deploycheck.Decode with its schema type", meta.APIVersion, meta.Kind)
	}
}

// decodeInto strictly decodes one object of kind T and appends it to into, also when it does not
// match: Decode returns what it decoded beside the error.
func decodeInto[T any](data []byte, into *[]T) error {
	var object T
	err := strict(data, &object)
	*into = append(*into, object)
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
