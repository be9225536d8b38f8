package spool

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// headerPrefix starts every batch file; the version lets a later agent change the format
// and still replay what an older one spooled.
const headerPrefix = "spindle-batch/1 content-encoding="

func encode(b Batch) ([]byte, error) {
	if strings.ContainsAny(b.ContentEncoding, " \r\n") {
		return nil, fmt.Errorf("invalid content encoding %q", b.ContentEncoding)
	}
	var buf bytes.Buffer
	buf.Grow(len(headerPrefix) + len(b.ContentEncoding) + 1 + len(b.Body))
	buf.WriteString(headerPrefix)
	buf.WriteString(b.ContentEncoding)
	buf.WriteByte('\n')
	buf.Write(b.Body)
	return buf.Bytes(), nil
}

func decode(seq uint64, data []byte) (Batch, error) {
	line, body, found := bytes.Cut(data, []byte{'\n'})
	if !found || !bytes.HasPrefix(line, []byte(headerPrefix)) {
		return Batch{}, fmt.Errorf("batch %d has no spindle-batch/1 header", seq)
	}
	return Batch{Seq: seq, ContentEncoding: string(line[len(headerPrefix):]), Body: body}, nil
}

// writeDurably writes data to tmp, fsyncs it, renames it to final and fsyncs the directory,
// so after a crash the batch is either fully there or not at all.
func writeDurably(tmp, final string, data []byte) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(final))
}
