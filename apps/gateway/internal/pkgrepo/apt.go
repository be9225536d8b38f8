package pkgrepo

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// The repository's layout (served under /apt/): one suite, one component, the architectures the
// agent is built for. A Packages file is written for each even when it lists nothing, so apt on
// an architecture without a package says so instead of failing to fetch the index.
const (
	Suite     = "stable"
	Component = "main"
)

var Architectures = []string{"amd64", "arm64"}

// Apt is the apt repository (served under /apt/) of the .deb packages in the releases served,
// rebuilt when they change: dists/stable/InRelease (clear-signed) and Release with its detached
// Release.gpg, naming each architecture's Packages by its SHA-256, which names the packages by
// theirs.
type Apt struct {
	signer *Signer
	indexCache
}

// NewApt makes the repository, signed by signer.
func NewApt(signer *Signer) *Apt {
	a := &Apt{signer: signer}
	a.indexCache = indexCache{format: "deb", build: a.build}
	return a
}

// ClientFiles are the repository's public key, binary (for signed-by) and armoured.
func (a *Apt) ClientFiles() map[string]ClientFile {
	return map[string]ClientFile{
		KeyringName:    {Data: a.signer.PublicKey(), ContentType: "application/pgp-keys"},
		ArmoredKeyName: {Data: a.signer.ArmoredPublicKey(), ContentType: "application/pgp-keys"},
	}
}

func (a *Apt) build(served []releases.Release, now time.Time) (*Index, error) {
	index := newIndex()
	stanzas := map[string][]string{}
	for _, r := range served {
		for _, f := range r.Packages {
			if f.Format != "deb" {
				continue
			}
			control, err := debControl(f.Path)
			if err != nil {
				index.Problems = append(index.Problems, fmt.Sprintf("release %s: %v", r.Version, err))
				continue
			}
			arch := controlField(control, "Architecture")
			if !slices.Contains(Architectures, arch) {
				index.Problems = append(index.Problems, fmt.Sprintf("release %s: %s is for architecture %q, not one of %s", r.Version, f.Name, arch, strings.Join(Architectures, ", ")))
				continue
			}
			pool := "pool/" + r.Version + "/" + f.Name
			index.Pool[pool] = f
			stanzas[arch] = append(stanzas[arch], fmt.Sprintf("%s\nFilename: %s\nSize: %d\nSHA256: %s\n", control, pool, f.Size, f.SHA256))
		}
	}
	var sums strings.Builder
	for _, arch := range Architectures {
		packages := []byte(strings.Join(stanzas[arch], "\n"))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(packages); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		dir := Component + "/binary-" + arch + "/"
		for name, data := range map[string][]byte{"Packages": packages, "Packages.gz": gz.Bytes()} {
			index.Files["dists/"+Suite+"/"+dir+name] = data
		}
		fmt.Fprintf(&sums, " %s %d %s\n", sha256Hex(packages), len(packages), dir+"Packages")
		fmt.Fprintf(&sums, " %s %d %s\n", sha256Hex(gz.Bytes()), gz.Len(), dir+"Packages.gz")
	}
	release := []byte(fmt.Sprintf("Origin: Spindle\nLabel: Spindle agent\nSuite: %s\nCodename: %s\nDate: %s\nArchitectures: %s\nComponents: %s\nDescription: The Spindle agent, as this gateway serves it\nSHA256:\n%s",
		Suite, Suite, now.Format(time.RFC1123Z), strings.Join(Architectures, " "), Component, sums.String()))
	inRelease, err := a.signer.ClearSigned(release)
	if err != nil {
		return nil, fmt.Errorf("sign InRelease: %w", err)
	}
	detached, err := a.signer.Detached(release)
	if err != nil {
		return nil, fmt.Errorf("sign Release: %w", err)
	}
	index.Files["dists/"+Suite+"/Release"] = release
	index.Files["dists/"+Suite+"/InRelease"] = inRelease
	index.Files["dists/"+Suite+"/Release.gpg"] = detached
	return index, nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
