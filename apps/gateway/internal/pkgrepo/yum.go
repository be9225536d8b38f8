package pkgrepo

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// RPMArchitectures are the rpm names of the architectures the agent is built for (nfpm maps
// amd64 and arm64 to these). One repository holds both: dnf picks its own $basearch.
var RPMArchitectures = []string{"x86_64", "aarch64"}

// Yum is the yum/dnf repository (served under /yum/) of the .rpm packages in the releases
// served, rebuilt when they change: repodata/repomd.xml, signed with a detached armoured
// signature (repomd.xml.asc, what dnf's repo_gpgcheck checks), naming primary, filelists and
// other by their SHA-256, each of which names the packages by theirs.
type Yum struct {
	signer    *Signer
	publicURL string // the gateway's address, which the .repo file names
	indexCache
}

// RepoFileName is the .repo file dnf reads from /etc/yum.repos.d/, served under /yum/.
const RepoFileName = "spindle.repo"

// NewYum makes the repository, signed by signer, whose .repo file names the gateway at publicURL.
func NewYum(signer *Signer, publicURL string) *Yum {
	y := &Yum{signer: signer, publicURL: strings.TrimRight(publicURL, "/")}
	y.indexCache = indexCache{format: "rpm", build: y.build}
	return y
}

// ClientFiles are the armoured public key dnf's gpgkey names and the .repo file that adds the
// repository (the console's dnf lines download it to /etc/yum.repos.d/).
func (y *Yum) ClientFiles() map[string]ClientFile {
	return map[string]ClientFile{
		ArmoredKeyName: {Data: y.signer.ArmoredPublicKey(), ContentType: "application/pgp-keys"},
		RepoFileName:   {Data: y.repoFile(), ContentType: "text/plain; charset=utf-8"},
	}
}

// repoFile is the .repo definition of this repository. repo_gpgcheck makes dnf check the
// detached signature over repomd.xml with the key at gpgkey, which dnf imports for this
// repository (printing its fingerprint); repomd.xml pins the metadata's SHA-256 and the metadata
// each package's, which dnf checks on download. The .rpm itself carries no signature (nfpm
// builds it with no key: the gateway's key is not at hand at build time), so gpgcheck is off:
// with it on, dnf would refuse every package.
func (y *Yum) repoFile() []byte {
	return []byte("[spindle]\nname=Spindle agent\nbaseurl=" + y.publicURL + "/yum\nenabled=1\nrepo_gpgcheck=1\ngpgcheck=0\ngpgkey=" +
		y.publicURL + "/yum/" + ArmoredKeyName + "\n")
}

func (y *Yum) build(served []releases.Release, now time.Time) (*Index, error) {
	index := newIndex()
	var primary, filelists, other strings.Builder
	n := 0
	for _, r := range served {
		for _, f := range r.Packages {
			if f.Format != "rpm" {
				continue
			}
			entry, err := y.entry(r.Version, f)
			if err != nil {
				index.Problems = append(index.Problems, fmt.Sprintf("release %s: %v", r.Version, err))
				continue
			}
			p, err := entry.primary()
			if err != nil {
				index.Problems = append(index.Problems, fmt.Sprintf("release %s: %s: %v", r.Version, f.Name, err))
				continue
			}
			fl, _ := entry.filelists()
			primary.WriteString(p)
			filelists.WriteString(fl)
			other.WriteString(entry.other())
			index.Pool[entry.href] = f
			n++
		}
	}
	var data strings.Builder
	for _, doc := range []struct {
		kind string
		xml  []byte
	}{{"primary", primaryXML(n, primary.String())}, {"filelists", filelistsXML(n, filelists.String())}, {"other", otherXML(n, other.String())}} {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(doc.xml); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		sum := sha256Hex(gz.Bytes())
		href := "repodata/" + sum + "-" + doc.kind + ".xml.gz"
		index.Files[href] = gz.Bytes()
		fmt.Fprintf(&data, "  <data type=\"%s\">\n    <checksum type=\"sha256\">%s</checksum>\n    <open-checksum type=\"sha256\">%s</open-checksum>\n    <location href=\"%s\"/>\n    <timestamp>%d</timestamp>\n    <size>%d</size>\n    <open-size>%d</open-size>\n  </data>\n",
			doc.kind, sum, sha256Hex(doc.xml), href, now.Unix(), gz.Len(), len(doc.xml))
	}
	repomd := []byte(fmt.Sprintf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n  <revision>%d</revision>\n%s</repomd>\n", now.Unix(), data.String()))
	signature, err := y.signer.Detached(repomd)
	if err != nil {
		return nil, fmt.Errorf("sign repomd.xml: %w", err)
	}
	index.Files["repodata/repomd.xml"] = repomd
	index.Files["repodata/repomd.xml.asc"] = signature
	return index, nil
}

// entry reads one .rpm's header and checks it is the agent for an architecture served.
func (y *Yum) entry(version string, f releases.File) (*rpmPackage, error) {
	header, err := readRPMHeader(f.Path)
	if err != nil {
		return nil, err
	}
	if arch := header.str(tagArch); !slices.Contains(RPMArchitectures, arch) {
		return nil, fmt.Errorf("%s is for architecture %q, not one of %s", f.Name, arch, strings.Join(RPMArchitectures, ", "))
	}
	if header.str(tagName) == "" || header.str(tagVersion) == "" {
		return nil, fmt.Errorf("%s has no name or version in its header", f.Name)
	}
	st, err := os.Stat(f.Path)
	if err != nil {
		return nil, err
	}
	return &rpmPackage{header: header, href: "packages/" + version + "/" + f.Name, sha256: f.SHA256, size: f.Size, modified: st.ModTime().Unix()}, nil
}
