// Package installer renders install.sh, the Linux one-liner's script, with the gateway's public
// URL filled in.
package installer

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed install.sh.tmpl
var scriptSource string

var script = template.Must(template.New("install.sh").
	Funcs(template.FuncMap{"shquote": shellQuote}).
	Parse(scriptSource))

// Render returns install.sh for agents of the gateway at gatewayURL.
func Render(gatewayURL string) ([]byte, error) {
	var out bytes.Buffer
	if err := script.Execute(&out, struct{ GatewayURL string }{gatewayURL}); err != nil {
		return nil, fmt.Errorf("render install.sh: %w", err)
	}
	return out.Bytes(), nil
}

// shellQuote makes s one single-quoted POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
