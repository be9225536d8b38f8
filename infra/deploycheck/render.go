package deploycheck

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// Render renders the chart in chartDir as `helm template` would for a first install, with the
// values in valuesFiles (later files win) over the chart's own, validated against the chart's
// values.schema.json. Strict: a template reading a value that does not exist fails.
func Render(chartDir string, valuesFiles ...string) (map[string]string, error) {
	chart, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	user := chartutil.Values{}
	for _, file := range valuesFiles {
		values, err := chartutil.ReadValuesFile(file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		user = chartutil.CoalesceTables(values, user)
	}
	options := chartutil.ReleaseOptions{Name: "spindle", Namespace: "spindle", Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValues(chart, user, options, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	renderer := engine.Engine{Strict: true}
	return renderer.Render(chart, values)
}
