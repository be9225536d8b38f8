// Command build-packages builds the Linux agent's .deb and .rpm with nfpm as a library
// (pure Go: no Docker, no downloaded tools), from the binaries build-dist.sh leaves in ../../bin.
//
// Usage: go run . -bin ../../bin -out ../../bin/packages -version 1.2.3 [-arch amd64,arm64]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm"
)

func main() {
	binDir := flag.String("bin", "../../bin", "folder holding spindle-agent-linux-<arch>")
	outDir := flag.String("out", "../../bin/packages", "folder to write the packages to")
	version := flag.String("version", "", "package version (required)")
	arches := flag.String("arch", "amd64,arm64", "comma-separated Go architectures")
	flag.Parse()
	if *version == "" {
		fail(fmt.Errorf("-version is required (for example -version \"$(cat ../../bin/VERSION)\")"))
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fail(err)
	}
	for _, arch := range strings.Split(*arches, ",") {
		for _, format := range []string{"deb", "rpm"} {
			path, err := build(*binDir, *outDir, *version, arch, format)
			if err != nil {
				fail(fmt.Errorf("%s %s: %w", format, arch, err))
			}
			fmt.Println(path)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "build-packages:", err)
	os.Exit(1)
}

func build(binDir, outDir, version, arch, format string) (string, error) {
	bin := filepath.Join(binDir, "spindle-agent-linux-"+arch)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%w: run sh build-dist.sh first", err)
	}
	here := "."
	// The agent reads how it was installed from this file beside its binary's directory and
	// leaves upgrades to the package manager (agent/internal/upgrade, method.go).
	method := filepath.Join(outDir, ".install-method-"+format)
	if err := os.WriteFile(method, []byte(format+"\n"), 0o644); err != nil {
		return "", err
	}
	defer os.Remove(method)
	info := &nfpm.Info{
		Name:        "spindle-agent",
		Arch:        arch,
		Platform:    "linux",
		Version:     version,
		Maintainer:  "Spindle <support@spindle.invalid>",
		Description: "Spindle agent: storage I/O telemetry and acceleration",
		Vendor:      "Spindle",
		Homepage:    "https://spindle.invalid",
		License:     "Proprietary",
		Section:     "admin",
		Priority:    "optional",
		Overridables: nfpm.Overridables{
			Contents: files.Contents{
				{Source: bin, Destination: "/usr/bin/spindle-agent", FileInfo: &files.ContentFileInfo{Mode: 0o755}},
				{Source: method, Destination: "/usr/lib/spindle-agent/install-method", FileInfo: &files.ContentFileInfo{Mode: 0o644}},
				{Source: filepath.Join(here, "spindle-agent.service"), Destination: "/lib/systemd/system/spindle-agent.service", FileInfo: &files.ContentFileInfo{Mode: 0o644}},
				{Source: filepath.Join(here, "spindle-agent.default"), Destination: "/etc/default/spindle-agent", Type: files.TypeConfigNoReplace, FileInfo: &files.ContentFileInfo{Mode: 0o644}},
				{Destination: "/var/lib/spindle", Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o700}},
				{Destination: "/etc/spindle", Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o700}},
			},
			Scripts: nfpm.Scripts{
				PostInstall: filepath.Join(here, "scripts", "postinst.sh"),
				PreRemove:   filepath.Join(here, "scripts", "prerm.sh"),
				PostRemove:  filepath.Join(here, "scripts", "postrm.sh"),
			},
		},
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.Validate(info); err != nil {
		return "", err
	}
	packager, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	path := filepath.Join(outDir, packager.ConventionalFileName(info))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := packager.Package(info, f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
