// Package installer renders install.sh, the Linux one-liner's script, with the gateway's public
// URL and the public key of its signing key (internal/signing) filled in.
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

// Render returns install.sh for agents of the gateway at gatewayURL, pinning publicKeyPEM
// (a PEM "PUBLIC KEY"): the script refuses SHA256SUMS whose signature that key does not verify.
func Render(gatewayURL, publicKeyPEM string) ([]byte, error) {
	if !strings.HasPrefix(publicKeyPEM, "-----BEGIN PUBLIC KEY-----\n") || strings.ContainsAny(publicKeyPEM, "'\\$`") {
		return nil, fmt.Errorf("render install.sh: the signing public key is not a PEM PUBLIC KEY block")
	}
	var out bytes.Buffer
	data := struct{ GatewayURL, PublicKeyPEM string }{gatewayURL, strings.TrimRight(publicKeyPEM, "\n")}
	if err := script.Execute(&out, data); err != nil {
		return nil, fmt.Errorf("render install.sh: %w", err)
	}
	return out.Bytes(), nil
}

// shellQuote makes s one single-quoted POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
