package upgrade

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// release serves /download/<version>/spindle-agent-linux-amd64 and its signed SHA256SUMS.
type release struct {
	binary    []byte
	sums      []byte
	signature []byte
	key       ed25519.PublicKey
	server    *httptest.Server
}

func newRelease(t *testing.T, binary []byte) *release {
	t.Helper()
	public, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(binary)
	r := &release{binary: binary, key: public}
	r.sums = fmt.Appendf(nil, "%s  spindle-agent-linux-amd64\n%s  spindle-agent-windows-amd64.exe\n", hex.EncodeToString(sum[:]), strings.Repeat("ab", 32))
	r.signature = ed25519.Sign(private, r.sums)
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/download/0.1.1/SHA256SUMS":
			_, _ = w.Write(r.sums)
		case "/download/0.1.1/spindle-agent-linux-amd64":
			_, _ = w.Write(r.binary)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.server.Close)
	return r
}

func (r *release) offer() Offer {
	sum := sha256.Sum256(r.binary)
	return Offer{Hash: strings.Repeat("0", 64), Version: "0.1.1", URL: r.server.URL + "/download/0.1.1/spindle-agent-linux-amd64",
		SHA256: sum[:], Signature: r.signature}
}

func publicPEM(t *testing.T, key ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func TestFetchVerifiesSignatureAndHashBeforeTheFileCanRun(t *testing.T) {
	r := newRelease(t, []byte("#!/bin/sh\necho new agent\n"))
	dir := t.TempDir()
	key, err := ParsePublicKey(publicPEM(t, r.key))
	if err != nil {
		t.Fatal(err)
	}
	path, err := Fetch(context.Background(), http.DefaultClient, key, r.offer(), dir)
	if err != nil {
		t.Fatalf("a good release was refused: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("the verified binary is %v (%v), want mode 0755", info, err)
	}
	if data, _ := os.ReadFile(path); string(data) != string(r.binary) {
		t.Fatalf("staged %q", data)
	}
}

func TestFetchRefusesTamperedDownloads(t *testing.T) {
	otherPublic, _, _ := ed25519.GenerateKey(rand.Reader)
	cases := []struct {
		name   string
		tamper func(r *release, o *Offer, key *ed25519.PublicKey)
		want   string
	}{
		{"binary altered in transit", func(r *release, _ *Offer, _ *ed25519.PublicKey) { r.binary = append(r.binary, '#') },
			"the download was altered or corrupted"},
		{"binary and SHA256SUMS replaced together", func(r *release, _ *Offer, _ *ed25519.PublicKey) {
			r.binary = []byte("evil")
			sum := sha256.Sum256(r.binary)
			r.sums = fmt.Appendf(nil, "%s  spindle-agent-linux-amd64\n", hex.EncodeToString(sum[:]))
		}, "does not verify with the key pinned at enrolment"},
		{"signed by another key", func(_ *release, _ *Offer, key *ed25519.PublicKey) { *key = otherPublic },
			"does not verify with the key pinned at enrolment"},
		{"no signature", func(_ *release, o *Offer, _ *ed25519.PublicKey) { o.Signature = nil }, "does not verify"},
		{"offer's hash is not the signed one", func(_ *release, o *Offer, _ *ed25519.PublicKey) { o.SHA256 = make([]byte, 32) },
			"is not the signed one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRelease(t, []byte("the real binary"))
			offer, key := r.offer(), r.key
			c.tamper(r, &offer, &key)
			dir := t.TempDir()
			_, err := Fetch(context.Background(), http.DefaultClient, key, offer, dir)
			if !errors.Is(err, ErrVerification) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, c.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Fatalf("a refused download was left behind: %v", left)
			}
		})
	}
}

func TestParsePublicKeyRefusesWhatIsNotAnEd25519Key(t *testing.T) {
	for _, text := range []string{"", "not pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"} {
		if _, err := ParsePublicKey(text); err == nil {
			t.Errorf("%q was accepted", text)
		}
	}
}
