package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// What every package repository serves before the gateway has any release: the files a client
// needs to add it (the key, and for dnf the .repo file naming this gateway's public URL, which
// the console's dnf lines download), and a clear 404 for the metadata, which needs packages.
// aptrepo_test.go and yumrepo_test.go run apt-get and dnf against the full repositories.
func TestPackageRepositoriesServeTheirClientFilesWithoutReleases(t *testing.T) {
	_, handler, err := newServer(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "https://gw.example.com:4318",
		SigningKey: testSigningKey, MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 1, MaxQueuedWrites: 1})
	if err != nil {
		t.Fatal(err)
	}
	get := func(method, path string) (int, string, string) {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
	}
	armored := ""
	for _, path := range []string{"/apt/spindle-archive-keyring.gpg", "/apt/spindle-archive-keyring.asc", "/yum/spindle-archive-keyring.asc"} {
		code, contentType, body := get(http.MethodGet, path)
		if code != http.StatusOK || contentType != "application/pgp-keys" || body == "" {
			t.Fatalf("GET %s: %d %q (%d bytes), want 200 application/pgp-keys", path, code, contentType, len(body))
		}
		if strings.HasSuffix(path, ".asc") {
			if armored != "" && body != armored {
				t.Fatalf("apt and yum serve different keys")
			}
			armored = body
		}
	}
	code, contentType, repo := get(http.MethodGet, "/yum/spindle.repo")
	if code != http.StatusOK || contentType != "text/plain; charset=utf-8" {
		t.Fatalf("GET /yum/spindle.repo: %d %q\n%s", code, contentType, repo)
	}
	lines := strings.Split(repo, "\n")
	for _, want := range []string{"[spindle]", "baseurl=https://gw.example.com:4318/yum", "enabled=1", "repo_gpgcheck=1", "gpgcheck=0",
		"gpgkey=https://gw.example.com:4318/yum/spindle-archive-keyring.asc"} {
		if !slices.Contains(lines, want) {
			t.Errorf("the .repo file has no line %q:\n%s", want, repo)
		}
	}
	for path, want := range map[string]string{
		"/yum/repodata/repomd.xml":         "SPINDLE_AGENT_DIST_DIR",
		"/apt/dists/stable/InRelease":      "SPINDLE_AGENT_DIST_DIR",
		"/yum/spindle-archive-keyring.gpg": "SPINDLE_AGENT_DIST_DIR", // dnf takes the armoured key only
		"/apt/spindle.repo":                "SPINDLE_AGENT_DIST_DIR",
		"/rpm/repodata/repomd.xml":         "there is nothing at /rpm/",
	} {
		if code, _, body := get(http.MethodGet, path); code != http.StatusNotFound || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %s, want 404 naming %s", path, code, body, want)
		}
	}
	if code, _, _ := get(http.MethodPost, "/yum/spindle.repo"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /yum/spindle.repo: %d, want 405", code)
	}
}
