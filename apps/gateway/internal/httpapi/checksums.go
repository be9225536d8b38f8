package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// checksumCache keeps each agent binary's SHA-256 while the file is unchanged, so SHA256SUMS
// costs a directory listing and a stat per binary instead of hashing every binary on every
// request (issue 25, M1: 20 requests took 3.1 s with three 32 MiB binaries). A binary the
// operator replaces (a different size, modification time, inode or device) is hashed again on
// the next request, so a stale sum is never served. The signature is kept with the sums it signs.
type checksumCache struct {
	mu      sync.Mutex
	files   map[string]hashedFile
	sums    []byte
	sig     []byte // Ed25519
	sigP256 []byte // ECDSA P-256, IEEE P1363
	hashing int    // files hashed since start (tests)
}

type hashedFile struct {
	size    int64
	modTime time.Time
	inode   uint64
	device  uint64
	sum     string
}

func newChecksumCache() *checksumCache {
	return &checksumCache{files: map[string]hashedFile{}}
}

// signedSums is SHA256SUMS and its signatures by the gateway's two keys.
type signedSums struct {
	sums, ed25519, p256 []byte
}

// current returns SHA256SUMS for the regular files in dir named like agent binaries, sorted, and
// its signatures by key.
func (c *checksumCache) current(dir string, key signing.Key) (signedSums, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return signedSums{}, err
	}
	// One request at a time: a binary just replaced is hashed once, not by every request at once.
	c.mu.Lock()
	defer c.mu.Unlock()
	var out bytes.Buffer
	seen := map[string]bool{}
	for _, entry := range entries { // ReadDir sorts by name
		if !entry.Type().IsRegular() || !agentBinaryName.MatchString(entry.Name()) {
			continue
		}
		sum, err := c.sumOf(filepath.Join(dir, entry.Name()))
		if err != nil {
			return signedSums{}, fmt.Errorf("%s: %w", entry.Name(), err)
		}
		seen[entry.Name()] = true
		fmt.Fprintf(&out, "%s  %s\n", sum, entry.Name())
	}
	for name := range c.files {
		if !seen[filepath.Base(name)] {
			delete(c.files, name)
		}
	}
	if !bytes.Equal(out.Bytes(), c.sums) || c.sig == nil {
		c.sums, c.sig, c.sigP256 = out.Bytes(), key.Sign(out.Bytes()), key.SignP256(out.Bytes())
	}
	return signedSums{sums: c.sums, ed25519: c.sig, p256: c.sigP256}, nil
}

// sumOf is the file's SHA-256, from the cache while the file is unchanged. The file is hashed
// through the descriptor it was checked on, so what is hashed is what was stat'ed.
func (c *checksumCache) sumOf(path string) (string, error) {
	file, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return "", err
	}
	identity := hashedFile{size: info.Size(), modTime: info.ModTime()}
	identity.inode, identity.device = fileIdentity(info)
	if cached, ok := c.files[path]; ok && cached.size == identity.size && cached.modTime.Equal(identity.modTime) &&
		cached.inode == identity.inode && cached.device == identity.device {
		return cached.sum, nil
	}
	hash := sha256.New()
	if _, err := io.Copy(hash, file); err != nil {
		return "", err
	}
	c.hashing++
	identity.sum = hex.EncodeToString(hash.Sum(nil))
	c.files[path] = identity
	return identity.sum, nil
}
