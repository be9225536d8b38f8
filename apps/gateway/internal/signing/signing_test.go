package signing

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A generated key is kept: the next start loads the same key, so installers keep verifying.
func TestLoadOrCreateGeneratesOnceThenLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "signing-key.pem")
	first, created, err := LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("first start: created %v, err %v", created, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v, want mode 0600", info, err)
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("state directory: %v %v, want mode 0700", info, err)
	}
	second, created, err := LoadOrCreate(path)
	if err != nil || created || second.PublicKeyPEM() != first.PublicKeyPEM() {
		t.Fatalf("second start: created %v, err %v, same key %v", created, err, second.PublicKeyPEM() == first.PublicKeyPEM())
	}
}

// The operator's own key, made with OpenSSL, loads, and what it signs OpenSSL verifies.
func TestOpenSSLKeysAndSignaturesInterwork(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed")
	}
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "key.pem")
	if out, err := exec.Command(openssl, "genpkey", "-algorithm", "ed25519", "-out", keyPath).CombinedOutput(); err != nil {
		t.Fatalf("openssl genpkey: %v\n%s", err, out)
	}
	key, err := Load(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	message := []byte("0123  spindle-agent-linux-amd64\n")
	files := map[string][]byte{"pub.pem": []byte(key.PublicKeyPEM()), "msg": message, "sig": key.Sign(message)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	verify := func() (string, error) {
		out, err := exec.Command(openssl, "pkeyutl", "-verify", "-pubin", "-inkey", filepath.Join(dir, "pub.pem"), "-rawin",
			"-in", filepath.Join(dir, "msg"), "-sigfile", filepath.Join(dir, "sig")).CombinedOutput()
		return string(out), err
	}
	if out, err := verify(); err != nil || !strings.Contains(out, "Signature Verified Successfully") {
		t.Fatalf("openssl refused the gateway's signature: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "msg"), append(message, 'x'), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := verify(); err == nil {
		t.Fatalf("openssl accepted a signature over different bytes:\n%s", out)
	}
}

func TestLoadRefusesWhatIsNotAnEd25519Key(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(garbage); err == nil || !strings.Contains(err.Error(), "openssl genpkey -algorithm ed25519") {
		t.Fatalf("err = %v, want one saying how to make a key", err)
	}
	if openssl, err := exec.LookPath("openssl"); err == nil {
		rsa := filepath.Join(dir, "rsa.pem")
		if out, err := exec.Command(openssl, "genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024", "-out", rsa).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if _, err := Load(rsa); err == nil || !strings.Contains(err.Error(), "Ed25519") {
			t.Fatalf("err = %v, want a refusal of an RSA key", err)
		}
	}
	// A missing configured key is an error, never silently replaced: installers pin its public key.
	if _, err := Load(filepath.Join(dir, "missing.pem")); err == nil {
		t.Fatal("a missing key loaded")
	}
}
