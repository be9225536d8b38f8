package httpapi

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newFileGateway serves downloads and the installer, which need no database.
func newFileGateway(t *testing.T, distDir string) *gateway {
	t.Helper()
	url, _ := serve(t, nil, func(o *Options) { o.AgentDistDir = distDir })
	return &gateway{url: url}
}

func TestDownloadServesAgentBinaries(t *testing.T) {
	dist := t.TempDir()
	binary := []byte("\x7fELF pretend agent")
	if err := os.WriteFile(filepath.Join(dist, "spindle-agent-linux-amd64"), binary, 0o755); err != nil {
		t.Fatal(err)
	}
	g := newFileGateway(t, dist)
	resp := g.get(t, "/download/spindle-agent-linux-amd64")
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || !bytes.Equal(body, binary) ||
		resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("download: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	head, err := http.Head(g.url + "/download/spindle-agent-linux-amd64")
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != http.StatusOK || head.ContentLength != int64(len(binary)) {
		t.Fatalf("HEAD: %d, length %d", head.StatusCode, head.ContentLength)
	}

	message := expectError(t, g.get(t, "/download/spindle-agent-linux-arm64"), http.StatusNotFound, reasonNotFound)
	if !strings.Contains(message, "spindle-agent-linux-amd64") {
		t.Fatalf("message %q does not list what the gateway has", message)
	}
}

func TestDownloadRefusesOtherFiles(t *testing.T) {
	root := t.TempDir()
	dist := filepath.Join(root, "dist")
	if err := os.Mkdir(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := []byte("database password")
	if err := os.WriteFile(filepath.Join(root, "secret"), secret, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dist, "spindle-agent-linux-arm64"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := newFileGateway(t, dist)
	for _, path := range []string{
		"/download/..%2fsecret",
		"/download/..%2F..%2Fetc%2Fpasswd",
		"/download/spindle-agent-linux-amd64%2f..%2f..%2fsecret",
		"/download/secret",
		"/download/spindle-agent-linux-arm64", // a directory, not a binary
		"/download/spindle-agent-plan9-mips",
	} {
		req, _ := http.NewRequest(http.MethodGet, g.url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || bytes.Contains(body, secret) || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %q", path, resp.StatusCode, body)
		}
	}
}

func TestDownloadWithoutDistDirSaysWhatToSet(t *testing.T) {
	g := newFileGateway(t, "")
	message := expectError(t, g.get(t, "/download/spindle-agent-linux-amd64"), http.StatusNotFound, reasonNotFound)
	if !strings.Contains(message, "SPINDLE_AGENT_DIST_DIR") {
		t.Fatalf("message %q", message)
	}
}

func TestInstallScriptCarriesThePublicURL(t *testing.T) {
	g := newFileGateway(t, "")
	resp := g.get(t, "/install.sh")
	body := string(readAll(t, resp))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, "#!/bin/sh") ||
		!strings.Contains(body, "DEFAULT_GATEWAY='http://gateway.test:4318'") {
		t.Fatalf("install.sh: %d\n%s", resp.StatusCode, body)
	}
}

func TestUnknownRoutesAndMethodsAnswerJSON(t *testing.T) {
	g := newFileGateway(t, "")
	expectError(t, g.get(t, "/v2/metrics"), http.StatusNotFound, reasonNotFound)
	resp := g.get(t, "/v1/metrics")
	expectError(t, resp, http.StatusMethodNotAllowed, reasonMethodNotAllowed)
	if resp.Header.Get("Allow") != http.MethodPost {
		t.Fatalf("Allow = %q", resp.Header.Get("Allow"))
	}
	expectError(t, g.post(t, "/healthz", nil, nil), http.StatusMethodNotAllowed, reasonMethodNotAllowed)
}

func TestChecksumsListEveryBinaryAsServedNow(t *testing.T) {
	dist := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("spindle-agent-linux-amd64", "amd64 agent")
	write("spindle-agent-linux-arm64", "arm64 agent")
	write("notes.txt", "not a binary")
	g := newFileGateway(t, dist)
	sums := func() string {
		resp := g.get(t, "/download/SHA256SUMS")
		body := readAll(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("SHA256SUMS: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	got := sums()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "  spindle-agent-linux-amd64") || !strings.HasSuffix(lines[1], "  spindle-agent-linux-arm64") {
		t.Fatalf("SHA256SUMS = %q", got)
	}
	if lines[0][:64] != sha256Hex("amd64 agent") || lines[1][:64] != sha256Hex("arm64 agent") {
		t.Fatalf("SHA256SUMS = %q", got)
	}
	write("spindle-agent-linux-amd64", "replaced agent")
	after := sums()
	if !strings.HasPrefix(after, sha256Hex("replaced agent")+"  spindle-agent-linux-amd64\n") {
		t.Fatalf("after replacing the binary, SHA256SUMS = %q", after)
	}
	// SHA256SUMS.sig is the signing key's Ed25519 signature over exactly these sums.
	resp := g.get(t, "/download/SHA256SUMS.sig")
	signature := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("SHA256SUMS.sig: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	block, _ := pem.Decode([]byte(testSigningKey.PublicKeyPEM()))
	public, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(public.(ed25519.PublicKey), []byte(after), signature) {
		t.Fatal("SHA256SUMS.sig does not verify SHA256SUMS with the gateway's public key")
	}
	if ed25519.Verify(public.(ed25519.PublicKey), []byte(got), signature) {
		t.Fatal("SHA256SUMS.sig also verifies the sums before the binary changed: it is not made from the sums served now")
	}
	// install.sh pins the same key.
	if script := readAll(t, g.get(t, "/install.sh")); !strings.Contains(string(script), strings.TrimSpace(testSigningKey.PublicKeyPEM())) {
		t.Fatal("install.sh does not carry the gateway's public key")
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The Windows agent is served as the executable and as the MSI, and both are in SHA256SUMS,
// which the PowerShell one-liner checks the executable against; other Windows-looking names are
// not downloads.
func TestDownloadServesTheWindowsExecutableAndMSI(t *testing.T) {
	dist := t.TempDir()
	files := map[string]string{
		"spindle-agent-windows-amd64.exe": "MZ pretend agent",
		"spindle-agent-windows-amd64.msi": "\xd0\xcf\x11\xe0 pretend MSI",
		"spindle-agent-windows-amd64.bat": "not a download",
		"spindle-agent-linux-amd64.exe":   "not a download",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := newFileGateway(t, dist)
	for _, name := range []string{"spindle-agent-windows-amd64.exe", "spindle-agent-windows-amd64.msi"} {
		resp := g.get(t, "/download/"+name)
		if body := readAll(t, resp); resp.StatusCode != http.StatusOK || string(body) != files[name] {
			t.Fatalf("%s: %d %q", name, resp.StatusCode, body)
		}
	}
	for _, name := range []string{"spindle-agent-windows-amd64.bat", "spindle-agent-linux-amd64.exe", "spindle-agent-windows-amd64"} {
		expectError(t, g.get(t, "/download/"+name), http.StatusNotFound, reasonNotFound)
	}
	resp := g.get(t, "/download/SHA256SUMS")
	want := sha256Hex(files["spindle-agent-windows-amd64.exe"]) + "  spindle-agent-windows-amd64.exe\n" +
		sha256Hex(files["spindle-agent-windows-amd64.msi"]) + "  spindle-agent-windows-amd64.msi\n"
	if got := string(readAll(t, resp)); got != want {
		t.Fatalf("SHA256SUMS = %q, want %q", got, want)
	}
}
