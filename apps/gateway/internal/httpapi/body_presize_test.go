package httpapi

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// readSized returns exactly the bytes sent, whether the announced size is right, too small or
// far too large (then the buffer it allocated before any byte arrived stays capped).
func TestReadSizedReturnsTheBodyWhateverTheAnnouncedSize(t *testing.T) {
	body := strings.Repeat("0123456789", 5_000)
	for _, hint := range []int64{-1, 0, 10, int64(len(body)), int64(len(body)) + 1, 8 << 20} {
		got, err := readSized(io.LimitReader(strings.NewReader(body), int64(len(body))), hint)
		if err != nil || !bytes.Equal(got, []byte(body)) {
			t.Fatalf("hint %d: %d bytes, err %v; want the %d bytes sent", hint, len(got), err, len(body))
		}
	}
	if got, _ := readSized(strings.NewReader("x"), 8<<20); cap(got) > presizeAtMost+1 {
		t.Fatalf("a 1-byte body announced as 8 MiB took a %d-byte buffer", cap(got))
	}
}
