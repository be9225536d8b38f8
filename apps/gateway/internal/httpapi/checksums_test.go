package httpapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// Issue 25, M1: SHA256SUMS hashed every binary on every request (20 requests took 3.1 s with
// three 32 MiB binaries). Each binary is now hashed once while it is unchanged, and again as soon
// as the operator replaces it; the sums and their signature stay right throughout.
func TestChecksumsHashEachBinaryOnceUntilItChanges(t *testing.T) {
	dist := t.TempDir()
	names := []string{"spindle-agent-linux-amd64", "spindle-agent-linux-arm64", "spindle-agent-windows-amd64.exe"}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dist, name), bytes.Repeat([]byte(name), 1<<14), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	public, private, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	g := newGateway(t, func(o *Options) { o.AgentDistDir, o.SigningKey = dist, signing.New(private) })
	sumOf := func(name string) string {
		content, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		return hex.EncodeToString(sum[:])
	}
	expect := func() {
		t.Helper()
		sums := readAll(t, g.get(t, "/download/SHA256SUMS"))
		var want strings.Builder
		for _, name := range names {
			fmt.Fprintf(&want, "%s  %s\n", sumOf(name), name)
		}
		if string(sums) != want.String() {
			t.Fatalf("SHA256SUMS:\n%s\nwant:\n%s", sums, want.String())
		}
		sig := readAll(t, g.get(t, "/download/SHA256SUMS.sig"))
		if !ed25519.Verify(public, sums, sig) {
			t.Fatal("SHA256SUMS.sig does not verify the sums served")
		}
		// The Windows one-liner's signature (issue 25, L4): ECDSA P-256 over the same bytes.
		p256 := readAll(t, g.get(t, "/download/SHA256SUMS.p256.sig"))
		point, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), signing.New(private).P256PublicPoint())
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.Sum256(sums)
		if len(p256) != 64 || !ecdsa.Verify(point, digest[:], new(big.Int).SetBytes(p256[:32]), new(big.Int).SetBytes(p256[32:])) {
			t.Fatalf("SHA256SUMS.p256.sig (%d bytes) does not verify the sums served", len(p256))
		}
	}
	for range 10 {
		expect()
	}
	if n := g.server.checksums.hashing; n != len(names) {
		t.Fatalf("20 requests hashed %d binaries; each of the %d should be hashed once", n, len(names))
	}
	// The operator replaces one binary (a new file, renamed over the old one, as build-dist does).
	replacement := filepath.Join(dist, ".new")
	if err := os.WriteFile(replacement, bytes.Repeat([]byte("v2"), 1<<14), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(replacement, filepath.Join(dist, names[1])); err != nil {
		t.Fatal(err)
	}
	expect()
	if n := g.server.checksums.hashing; n != len(names)+1 {
		t.Fatalf("after replacing one binary, %d hashes in all; want one more", n)
	}
	// Rewritten in place, same size: its modification time tells.
	later := time.Now().Add(time.Minute)
	if err := os.WriteFile(filepath.Join(dist, names[0]), bytes.Repeat([]byte("x"), len(names[0])<<14), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dist, names[0]), later, later); err != nil {
		t.Fatal(err)
	}
	expect()
}

// BenchmarkSHA256SUMS is issue 25's measurement: three 32 MiB binaries, SHA256SUMS requested
// again and again. "cached" is the gateway now; "hashed per request" gives each request an empty
// cache, which is what every request cost before.
//
//	go test ./internal/httpapi/ -run '^$' -bench BenchmarkSHA256SUMS -benchtime 20x
func BenchmarkSHA256SUMS(b *testing.B) {
	dist := b.TempDir()
	for _, name := range []string{"spindle-agent-linux-amd64", "spindle-agent-linux-arm64", "spindle-agent-windows-amd64.exe"} {
		content := bytes.Repeat([]byte(name), (32<<20)/len(name)+1)[:32<<20]
		if err := os.WriteFile(filepath.Join(dist, name), content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, handler, err := newServer(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "http://gateway.test:4318",
		SigningKey: testSigningKey, MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 1, AgentDistDir: dist})
	if err != nil {
		b.Fatal(err)
	}
	request := func() {
		recorder := httptest.NewRecorder()
		handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, "/download/SHA256SUMS", nil))
		if recorder.Code != http.StatusOK {
			b.Fatalf("status %d", recorder.Code)
		}
	}
	b.Run("cached", func(b *testing.B) {
		request()
		b.ResetTimer()
		for range b.N {
			request()
		}
	})
	b.Run("hashed per request", func(b *testing.B) {
		for range b.N {
			s.checksums = newChecksumCache()
			request()
		}
	})
}
