package upgrade

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Bounds of what an upgrade downloads: the agent binary is tens of MB.
const (
	maxSumsBytes   = 64 << 10
	maxBinaryBytes = 512 << 20
)

// ErrVerification marks a download that failed its signature or SHA-256 check: refused, deleted,
// never run.
var ErrVerification = errors.New("upgrade refused")

// ParsePublicKey reads the gateway's Ed25519 public key (PEM "PUBLIC KEY", as enrolment gives it).
func ParsePublicKey(pemText string) (ed25519.PublicKey, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New("the gateway's signing key in the agent's configuration is not a PEM PUBLIC KEY: enrol the agent again")
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the gateway's signing key: %w", err)
	}
	key, ok := parsed.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the gateway's signing key is a %T key, not Ed25519", parsed)
	}
	return key, nil
}

// Fetch downloads the offered binary into dir and verifies it: SHA256SUMS from the binary's
// directory must carry the gateway's signature (checked with key), name the binary with the
// offered hash, and the downloaded bytes must have that hash. Only then is the file made
// executable; on any failure it is deleted and the error wraps ErrVerification (or says what
// failed to download). It returns the verified file's path.
func Fetch(ctx context.Context, client *http.Client, key ed25519.PublicKey, offer Offer, dir string) (string, error) {
	binaryURL, err := url.Parse(offer.URL)
	if err != nil || (binaryURL.Scheme != "http" && binaryURL.Scheme != "https") {
		return "", fmt.Errorf("%w: the offer's download address %q is not an http(s) URL", ErrVerification, offer.URL)
	}
	name := path.Base(binaryURL.Path)
	sumsURL := *binaryURL
	sumsURL.Path = path.Join(path.Dir(binaryURL.Path), "SHA256SUMS")
	sumsURL.RawQuery = ""

	sums, err := get(ctx, client, sumsURL.String(), maxSumsBytes)
	if err != nil {
		return "", fmt.Errorf("download SHA256SUMS: %w", err)
	}
	if len(offer.Signature) != ed25519.SignatureSize || !ed25519.Verify(key, sums, offer.Signature) {
		return "", fmt.Errorf("%w: the gateway's signature over SHA256SUMS of %s does not verify with the key pinned at enrolment (the sums were altered, or signed by another key)", ErrVerification, offer.Version)
	}
	signed, ok := lookupSum(sums, name)
	if !ok {
		return "", fmt.Errorf("%w: the signed SHA256SUMS of %s does not list %s", ErrVerification, offer.Version, name)
	}
	if !bytes.Equal(signed, offer.SHA256) {
		return "", fmt.Errorf("%w: the offer's SHA-256 of %s is not the signed one", ErrVerification, name)
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	target := filepath.Join(dir, "spindle-agent-"+offer.Version+exeSuffix)
	got, err := download(ctx, client, offer.URL, target)
	if err != nil {
		os.Remove(target)
		return "", fmt.Errorf("download %s: %w", name, err)
	}
	if !bytes.Equal(got, signed) {
		os.Remove(target)
		return "", fmt.Errorf("%w: %s has SHA-256 %s, the signed SHA256SUMS says %s: the download was altered or corrupted, and was deleted without running",
			ErrVerification, name, hex.EncodeToString(got), hex.EncodeToString(signed))
	}
	if err := os.Chmod(target, 0o755); err != nil {
		os.Remove(target)
		return "", err
	}
	return target, nil
}

// lookupSum finds name in sha256sum's format ("<hex>  <name>", or "<hex> *<name>").
func lookupSum(sums []byte, name string) ([]byte, bool) {
	scanner := bufio.NewScanner(bytes.NewReader(sums))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) != 2 || strings.TrimPrefix(fields[1], "*") != name {
			continue
		}
		sum, err := hex.DecodeString(fields[0])
		if err != nil || len(sum) != sha256.Size {
			return nil, false
		}
		return sum, true
	}
	return nil, false
}

func get(ctx context.Context, client *http.Client, address string, limit int64) ([]byte, error) {
	resp, err := request(ctx, client, address)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", address, limit)
	}
	return data, nil
}

// download streams the body into target (mode 0600: nothing may run it before it is verified) and
// returns its SHA-256.
func download(ctx context.Context, client *http.Client, address, target string) ([]byte, error) {
	resp, err := request(ctx, client, address)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	file, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	hash := sha256.New()
	n, err := io.Copy(io.MultiWriter(file, hash), io.LimitReader(resp.Body, maxBinaryBytes+1))
	if err == nil && n > maxBinaryBytes {
		err = fmt.Errorf("larger than %d bytes", maxBinaryBytes)
	}
	if err == nil {
		err = file.Sync()
	}
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	return hash.Sum(nil), nil
}

func request(ctx context.Context, client *http.Client, address string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, address, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s answered %s", address, resp.Status)
	}
	return resp, nil
}
