package pkgrepo

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// agentRPM builds the real .rpm (agent/packaging/linux, nfpm) around a small stand-in binary:
// the header is what is read here, and the packaging build is the same whatever the binary.
func agentRPM(t *testing.T) string {
	t.Helper()
	bin, out := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "spindle-agent-linux-amd64"), []byte("#!/bin/sh\necho 0.9.7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".", "-bin", bin, "-out", out, "-version", "0.9.7", "-arch", "amd64")
	cmd.Dir, _ = filepath.Abs("../../../../agent/packaging/linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the packages: %v\n%s", err, b)
	}
	return filepath.Join(out, "spindle-agent-0.9.7-1.x86_64.rpm")
}

// rpmQuery is what Debian's rpm says of the package (the reference the parser must agree with).
func rpmQuery(t *testing.T, path, format string) string {
	t.Helper()
	out, err := exec.Command("rpm", "-qp", "--nosignature", "--nodigest", "--queryformat", format, path).Output()
	if err != nil {
		t.Fatalf("rpm -qp %s: %v", format, err)
	}
	return string(out)
}

// The header read from the real .rpm says what rpm itself says: name, version, architecture,
// sizes and every file path; and the header range is where rpm's header lies (its bytes start
// with the header magic and end where the payload's compressed stream begins).
func TestTheRPMHeaderIsReadAsRPMReadsIt(t *testing.T) {
	if _, err := exec.LookPath("rpm"); err != nil {
		t.Fatal("rpm is missing: this test needs Debian's rpm (scripts/setup.sh installs it)")
	}
	path := agentRPM(t)
	h, err := readRPMHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{h.str(tagName), h.str(tagVersion), h.str(tagRelease), h.str(tagArch), h.str(tagLicense), h.str(tagSummary)}, "|")
	if want := rpmQuery(t, path, "%{NAME}|%{VERSION}|%{RELEASE}|%{ARCH}|%{LICENSE}|%{SUMMARY}"); got != want {
		t.Fatalf("header fields %q, rpm says %q", got, want)
	}
	size, _ := h.num(tagSize)
	if want := rpmQuery(t, path, "%{SIZE}"); strconv.FormatInt(size, 10) != want {
		t.Fatalf("installed size %d, rpm says %s", size, want)
	}
	paths, _, err := h.files()
	if err != nil {
		t.Fatal(err)
	}
	if want := rpmQuery(t, path, "[%{FILENAMES}\n]"); strings.Join(paths, "\n")+"\n" != want {
		t.Fatalf("files %q, rpm says %q", paths, want)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Equal(data[h.start:h.start+4], rpmHeaderMagic) || h.end >= int64(len(data)) {
		t.Fatalf("header range %d-%d is not the header", h.start, h.end)
	}
	if payload := data[h.end:]; !bytes.HasPrefix(payload, []byte{0x1f, 0x8b}) && !bytes.HasPrefix(payload, []byte{0x28, 0xb5, 0x2f, 0xfd}) && !bytes.HasPrefix(payload, []byte{0xfd, '7', 'z'}) {
		t.Fatalf("the header does not end where the payload begins (bytes % x)", payload[:4])
	}
	// Not an rpm: a clear error, not a crash.
	junk := filepath.Join(t.TempDir(), "spindle-agent-0.9.7-1.x86_64.rpm")
	_ = os.WriteFile(junk, []byte("!<arch>\nnot an rpm"), 0o644)
	if _, err := readRPMHeader(junk); err == nil || !strings.Contains(err.Error(), "not an rpm package") {
		t.Fatalf("a file that is no rpm: %v", err)
	}
	truncated := filepath.Join(t.TempDir(), "spindle-agent-0.9.7-1.x86_64.rpm")
	_ = os.WriteFile(truncated, data[:h.start+100], 0o644)
	if _, err := readRPMHeader(truncated); err == nil {
		t.Fatal("a truncated rpm was read")
	}
}

// The metadata chain a client checks: repomd.xml signed by the repository key, naming each
// metadata file by the SHA-256 of its compressed and uncompressed bytes, and primary naming the
// package by its SHA-256 at the href the pool serves. A package that cannot be read is left
// out and named in Problems.
func TestTheYumMetadataChainsFromTheSignatureToThePackage(t *testing.T) {
	path := agentRPM(t)
	data, _ := os.ReadFile(path)
	sum := sha256.Sum256(data)
	junk := filepath.Join(t.TempDir(), "spindle-agent-0.9.8-1.x86_64.rpm")
	_ = os.WriteFile(junk, []byte("not an rpm"), 0o644)
	served := []releases.Release{
		{Version: "0.9.7", Packages: []releases.File{{Name: filepath.Base(path), Path: path, Format: "rpm", SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}}},
		{Version: "0.9.8", Packages: []releases.File{{Name: filepath.Base(junk), Path: junk, Format: "rpm", SHA256: "00", Size: 10}}},
	}
	signer, err := NewSigner(keyFrom(1))
	if err != nil {
		t.Fatal(err)
	}
	index, err := NewYum(signer, "https://gw.example.com").Index(served)
	if err != nil {
		t.Fatal(err)
	}
	if len(index.Problems) != 1 || !strings.Contains(index.Problems[0], "0.9.8") {
		t.Fatalf("problems %q: want the unreadable 0.9.8 named", index.Problems)
	}
	repomd := index.Files["repodata/repomd.xml"]
	ring, _ := openpgp.ReadArmoredKeyRing(bytes.NewReader(signer.ArmoredPublicKey()))
	if _, err := openpgp.CheckArmoredDetachedSignature(ring, bytes.NewReader(repomd), bytes.NewReader(index.Files["repodata/repomd.xml.asc"]), nil); err != nil {
		t.Fatalf("repomd.xml.asc does not verify: %v", err)
	}
	var md struct {
		Data []struct {
			Type     string `xml:"type,attr"`
			Checksum string `xml:"checksum"`
			Open     string `xml:"open-checksum"`
			Location struct {
				Href string `xml:"href,attr"`
			} `xml:"location"`
		} `xml:"data"`
	}
	if err := xml.Unmarshal(repomd, &md); err != nil || len(md.Data) != 3 {
		t.Fatalf("repomd.xml: %v, %d data", err, len(md.Data))
	}
	var primary []byte
	for _, d := range md.Data {
		gz := index.Files[d.Location.Href]
		if hexSum(gz) != d.Checksum {
			t.Fatalf("%s: checksum %s is not its bytes'", d.Type, d.Checksum)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		if hexSum(plain) != d.Open {
			t.Fatalf("%s: open-checksum %s is not its bytes'", d.Type, d.Open)
		}
		if d.Type == "primary" {
			primary = plain
		}
	}
	var meta struct {
		Packages []struct {
			Name     string `xml:"name"`
			Checksum string `xml:"checksum"`
			Location struct {
				Href string `xml:"href,attr"`
			} `xml:"location"`
			Files []string `xml:"format>file"`
		} `xml:"package"`
	}
	if err := xml.Unmarshal(primary, &meta); err != nil || len(meta.Packages) != 1 {
		t.Fatalf("primary.xml: %v, %d packages", err, len(meta.Packages))
	}
	p := meta.Packages[0]
	if p.Name != "spindle-agent" || p.Checksum != served[0].Packages[0].SHA256 || index.Pool[p.Location.Href].Path != path {
		t.Fatalf("primary names %+v; the pool serves %v", p, index.Pool)
	}
	if !strings.Contains(strings.Join(p.Files, " "), "/usr/bin/spindle-agent") {
		t.Fatalf("primary lists files %q, without /usr/bin/spindle-agent", p.Files)
	}
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The metadata of each package is what createrepo_c, the tool Fedora builds its repositories
// with, writes for the same .rpm: primary, filelists and other entries compared as text (only the
// location differs: createrepo_c names the file where it found it).
func TestTheYumMetadataIsWhatCreaterepoWrites(t *testing.T) {
	if _, err := exec.LookPath("createrepo_c"); err != nil {
		t.Fatal("createrepo_c is missing: this test needs Debian's createrepo-c (scripts/setup.sh installs it)")
	}
	path := agentRPM(t)
	data, _ := os.ReadFile(path)
	dir := t.TempDir()
	if err := os.Link(path, filepath.Join(dir, filepath.Base(path))); err != nil { // the same file: the same mtime
		t.Fatal(err)
	}
	if out, err := exec.Command("createrepo_c", "-q", "--no-database", dir).CombinedOutput(); err != nil {
		t.Fatalf("createrepo_c: %v\n%s", err, out)
	}
	signer, _ := NewSigner(keyFrom(1))
	index, err := NewYum(signer, "https://gw.example.com").Index([]releases.Release{{Version: "0.9.7", Packages: []releases.File{
		{Name: filepath.Base(path), Path: path, Format: "rpm", SHA256: hexSum(data), Size: int64(len(data))}}}})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	for name, body := range index.Files {
		for _, kind := range []string{"primary", "filelists", "other"} {
			if strings.HasSuffix(name, "-"+kind+".xml.gz") {
				ours[kind] = gunzip(t, body)
			}
		}
	}
	for _, kind := range []string{"primary", "filelists", "other"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "repodata", "*-"+kind+".xml.gz"))
		if len(matches) != 1 {
			t.Fatalf("createrepo_c wrote %d %s files", len(matches), kind)
		}
		theirs, _ := os.ReadFile(matches[0])
		want := strings.Replace(gunzip(t, theirs), `href="`+filepath.Base(path), `href="packages/0.9.7/`+filepath.Base(path), 1)
		if got := packageElement(ours[kind]); got != packageElement(want) {
			t.Fatalf("%s differs from createrepo_c's:\n--- ours\n%s\n--- createrepo_c\n%s", kind, got, packageElement(want))
		}
	}
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(zr)
	return string(out)
}

// packageElement is the text from the first <package to the last </package>.
func packageElement(doc string) string {
	start, end := strings.Index(doc, "<package"), strings.LastIndex(doc, "</package>")
	if start < 0 || end < start {
		return ""
	}
	return doc[start : end+len("</package>")]
}
