package pkgrepo

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// rpmPackage is what the repository metadata says of one .rpm, read from its header.
type rpmPackage struct {
	header   *rpmHeader
	href     string // location under /yum/
	sha256   string // of the whole file: the pkgid
	size     int64  // of the whole file
	modified int64  // the file's modification time, Unix seconds (time file=)
}

// The dependency flags (rpm's RPMSENSE_LESS, _GREATER, _EQUAL) as yum metadata names them.
func senseFlags(flags int64) string {
	switch flags & 0xe {
	case 2:
		return "LT"
	case 4:
		return "GT"
	case 8:
		return "EQ"
	case 10:
		return "LE"
	case 12:
		return "GE"
	}
	return ""
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// evr splits an [epoch:]version[-release] into yum's attributes.
func evrAttrs(evr string) string {
	epoch, rest := "0", evr
	if e, r, ok := strings.Cut(evr, ":"); ok {
		epoch, rest = e, r
	}
	ver, rel, _ := strings.Cut(rest, "-")
	attrs := fmt.Sprintf(` epoch="%s" ver="%s"`, esc(epoch), esc(ver))
	if rel != "" {
		attrs += fmt.Sprintf(` rel="%s"`, esc(rel))
	}
	return attrs
}

// versionElement is <version epoch= ver= rel=/>, as the three metadata files give it.
func (p *rpmPackage) versionElement() string {
	epoch, _ := p.header.num(tagEpoch)
	return fmt.Sprintf(`<version epoch="%d" ver="%s" rel="%s"/>`, epoch, esc(p.header.str(tagVersion)), esc(p.header.str(tagRelease)))
}

// dependencies is an rpm:provides or rpm:requires list. rpmlib(…) requirements are left out,
// as createrepo does: they are rpm's own features, not packages a client could resolve.
func (p *rpmPackage) dependencies(element string, names, flags, versions int32) string {
	n, f, v := p.header.strs(names), p.header.ints(flags), p.header.strs(versions)
	var b strings.Builder
	for i, name := range n {
		if strings.HasPrefix(name, "rpmlib(") {
			continue
		}
		fmt.Fprintf(&b, `      <rpm:entry name="%s"`, esc(name))
		if i < len(f) && i < len(v) && v[i] != "" {
			if flag := senseFlags(f[i]); flag != "" {
				fmt.Fprintf(&b, ` flags="%s"%s`, flag, evrAttrs(v[i]))
			}
		}
		b.WriteString("/>\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("    <rpm:%s>\n%s    </rpm:%s>\n", element, b.String(), element)
}

// fileElements lists the package's files: all of them (filelists.xml), or, for primary.xml,
// those in /etc and bin directories, which dependency resolution may ask for.
func fileElements(paths []string, isDir []bool, primaryOnly bool, indent string) string {
	var b strings.Builder
	for i, path := range paths {
		if primaryOnly && !strings.HasPrefix(path, "/etc/") && !strings.Contains(path, "bin/") {
			continue
		}
		kind := ""
		if isDir[i] {
			kind = ` type="dir"`
		}
		fmt.Fprintf(&b, "%s<file%s>%s</file>\n", indent, kind, esc(path))
	}
	return b.String()
}

func (p *rpmPackage) primary() (string, error) {
	h := p.header
	paths, isDir, err := h.files()
	if err != nil {
		return "", err
	}
	build, _ := h.num(tagBuildTime)
	installed, archive := h.sizes()
	var b strings.Builder
	fmt.Fprintf(&b, "<package type=\"rpm\">\n  <name>%s</name>\n  <arch>%s</arch>\n  %s\n", esc(h.str(tagName)), esc(h.str(tagArch)), p.versionElement())
	fmt.Fprintf(&b, "  <checksum type=\"sha256\" pkgid=\"YES\">%s</checksum>\n", p.sha256)
	fmt.Fprintf(&b, "  <summary>%s</summary>\n  <description>%s</description>\n  <packager>%s</packager>\n  <url>%s</url>\n",
		esc(h.str(tagSummary)), esc(h.str(tagDescription)), esc(h.str(tagPackager)), esc(h.str(tagURL)))
	fmt.Fprintf(&b, "  <time file=\"%d\" build=\"%d\"/>\n  <size package=\"%d\" installed=\"%d\" archive=\"%d\"/>\n", p.modified, build, p.size, installed, archive)
	fmt.Fprintf(&b, "  <location href=\"%s\"/>\n  <format>\n", esc(p.href))
	fmt.Fprintf(&b, "    <rpm:license>%s</rpm:license>\n    <rpm:vendor>%s</rpm:vendor>\n    <rpm:group>%s</rpm:group>\n    <rpm:buildhost>%s</rpm:buildhost>\n    <rpm:sourcerpm>%s</rpm:sourcerpm>\n",
		esc(h.str(tagLicense)), esc(h.str(tagVendor)), esc(h.str(tagGroup)), esc(h.str(tagBuildHost)), esc(h.str(tagSourceRPM)))
	fmt.Fprintf(&b, "    <rpm:header-range start=\"%d\" end=\"%d\"/>\n", h.start, h.end)
	b.WriteString(p.dependencies("provides", tagProvideName, tagProvideFlags, tagProvideVersion))
	b.WriteString(p.dependencies("requires", tagRequireName, tagRequireFlags, tagRequireVersion))
	b.WriteString(fileElements(paths, isDir, true, "    "))
	b.WriteString("  </format>\n</package>\n")
	return b.String(), nil
}

func (p *rpmPackage) filelists() (string, error) {
	paths, isDir, err := p.header.files()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("<package pkgid=\"%s\" name=\"%s\" arch=\"%s\">\n  %s\n%s</package>\n",
		p.sha256, esc(p.header.str(tagName)), esc(p.header.str(tagArch)), p.versionElement(), fileElements(paths, isDir, false, "  ")), nil
}

// other is other.xml's entry: the package's changelog, which nfpm's packages do not carry.
func (p *rpmPackage) other() string {
	return fmt.Sprintf("<package pkgid=\"%s\" name=\"%s\" arch=\"%s\">\n  %s\n</package>\n",
		p.sha256, esc(p.header.str(tagName)), esc(p.header.str(tagArch)), p.versionElement())
}

// The three metadata documents around their packages' entries.
func primaryXML(n int, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="` + strconv.Itoa(n) + "\">\n" + body + "</metadata>\n")
}

func filelistsXML(n int, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<filelists xmlns="http://linux.duke.edu/metadata/filelists" packages="` + strconv.Itoa(n) + "\">\n" + body + "</filelists>\n")
}

func otherXML(n int, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<otherdata xmlns="http://linux.duke.edu/metadata/other" packages="` + strconv.Itoa(n) + "\">\n" + body + "</otherdata>\n")
}
