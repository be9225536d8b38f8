package deploycheck

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// ComposeFile is the part of the Compose specification Spindle's compose file may use; a field
// outside it (a typo, or a feature nobody reviewed) fails decoding.
type ComposeFile struct {
	Name     string                    `json:"name"`
	Services map[string]ComposeService `json:"services"`
	Volumes  map[string]struct{}       `json:"volumes"`
}

type ComposeService struct {
	Image       string                      `json:"image"`
	Build       *ComposeBuild               `json:"build"`
	Restart     string                      `json:"restart"`
	WorkingDir  string                      `json:"working_dir"`
	Command     []string                    `json:"command"`
	Environment map[string]string           `json:"environment"`
	Ports       []string                    `json:"ports"`
	Volumes     []string                    `json:"volumes"`
	Healthcheck *ComposeHealthcheck         `json:"healthcheck"`
	DependsOn   map[string]ComposeDependsOn `json:"depends_on"`
}

type ComposeBuild struct {
	Context    string `json:"context"`
	Dockerfile string `json:"dockerfile"`
}

type ComposeHealthcheck struct {
	Test     []string `json:"test"`
	Interval string   `json:"interval"`
	Timeout  string   `json:"timeout"`
	Retries  int      `json:"retries"`
}

type ComposeDependsOn struct {
	Condition string `json:"condition"`
}

// ReadCompose reads a compose file as Compose would (anchors and merge keys resolved, top-level
// x- extension fields ignored) and decodes it strictly.
func ReadCompose(path string) (ComposeFile, error) {
	var file ComposeFile
	text, err := os.ReadFile(path)
	if err != nil {
		return file, err
	}
	data, err := yaml.YAMLToJSON(text)
	if err != nil {
		return file, fmt.Errorf("%s is not YAML: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return file, err
	}
	for key := range top {
		if strings.HasPrefix(key, "x-") {
			delete(top, key)
		}
	}
	if data, err = json.Marshal(top); err != nil {
		return file, err
	}
	if err := strict(data, &file); err != nil {
		return file, fmt.Errorf("%s: %w", path, err)
	}
	return file, nil
}
