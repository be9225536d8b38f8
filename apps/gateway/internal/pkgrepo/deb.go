package pkgrepo

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// debControl reads a .deb's control file: the ar archive's control.tar.gz (what nfpm writes;
// agent/packaging/linux), its ./control. Only that member is read, however large the package.
func debControl(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	magic := make([]byte, 8)
	if _, err := io.ReadFull(f, magic); err != nil || string(magic) != "!<arch>\n" {
		return "", fmt.Errorf("%s is not a Debian package (no ar header)", path)
	}
	header := make([]byte, 60)
	for {
		if _, err := io.ReadFull(f, header); err != nil {
			return "", fmt.Errorf("%s has no control.tar.gz member", path)
		}
		name := strings.TrimRight(strings.TrimSpace(string(header[0:16])), "/")
		size, err := strconv.ParseInt(strings.TrimSpace(string(header[48:58])), 10, 64)
		if err != nil || size < 0 {
			return "", fmt.Errorf("%s: a corrupt ar member header", path)
		}
		if strings.HasPrefix(name, "control.tar") {
			if name != "control.tar.gz" {
				return "", fmt.Errorf("%s: %s is not read (the gateway reads control.tar.gz, what nfpm writes)", path, name)
			}
			return controlFromTarGz(io.LimitReader(f, size))
		}
		if _, err := f.Seek(size+size%2, io.SeekCurrent); err != nil {
			return "", err
		}
	}
}

func controlFromTarGz(r io.Reader) (string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return "", fmt.Errorf("control.tar.gz: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", errors.New("control.tar.gz holds no control file")
		}
		if err != nil {
			return "", fmt.Errorf("control.tar.gz: %w", err)
		}
		if h.Name == "./control" || h.Name == "control" {
			var b bytes.Buffer
			if _, err := io.Copy(&b, io.LimitReader(tr, 1<<20)); err != nil {
				return "", err
			}
			return strings.TrimRight(b.String(), "\n"), nil
		}
	}
}

// controlField is one field's value from a control file's first paragraph.
func controlField(control, name string) string {
	for line := range strings.SplitSeq(control, "\n") {
		if value, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(value)
		}
	}
	return ""
}
