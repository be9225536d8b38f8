package httpapi

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// bodyError carries the status and reason a body problem answers with.
type bodyError struct {
	status  int
	reason  string
	message string
	cause   error // what the read failed with, if anything (a deadline, …)
}

func (e *bodyError) Error() string { return e.message }
func (e *bodyError) Unwrap() error { return e.cause }

// readBody reads the request body, gunzipping it when Content-Encoding says gzip. The limit
// holds for the bytes on the wire and again for the gunzipped bytes, so a small gzip bomb is
// refused as too large instead of filling memory.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	tooLarge := &bodyError{status: http.StatusRequestEntityTooLarge, reason: reasonTooLarge,
		message: fmt.Sprintf("the request body is larger than %d bytes; send smaller batches", limit)}
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	var reader io.Reader = http.MaxBytesReader(w, r.Body, limit)
	sizeHint := r.ContentLength // -1 when unknown
	switch encoding := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); encoding {
	case "", "identity":
	case "gzip":
		gz, err := gzip.NewReader(reader)
		if err != nil {
			if isMaxBytes(err) {
				return nil, tooLarge
			}
			return nil, &bodyError{http.StatusBadRequest, reasonMalformed, "the body is not valid gzip: " + err.Error(), err}
		}
		defer gz.Close()
		tooLarge.message = fmt.Sprintf("the gunzipped request body is larger than %d bytes; send smaller batches", limit)
		reader = io.LimitReader(gz, limit+1)
		sizeHint = -1 // the gunzipped size is not known
	default:
		return nil, &bodyError{status: http.StatusUnsupportedMediaType, reason: reasonUnsupportedMediaType,
			message: fmt.Sprintf("Content-Encoding %q is not supported; send gzip or no encoding", encoding)}
	}
	body, err := readSized(reader, sizeHint)
	switch {
	case isMaxBytes(err):
		return nil, tooLarge
	case err != nil:
		return nil, &bodyError{http.StatusBadRequest, reasonMalformed, "the request body could not be read: " + err.Error(), err}
	case int64(len(body)) > limit:
		return nil, tooLarge
	}
	return body, nil
}

// presizeAtMost caps the buffer readSized allocates before any byte arrived: bodies are read
// before admission, so a client announcing the size limit and sending nothing must not make the
// gateway hold that much memory per connection. Agent batches are a few to tens of KB.
const presizeAtMost = 256 << 10

// readSized is io.ReadAll into a buffer of the announced size (plus the byte the read that meets
// EOF needs), instead of growing one from 512 bytes through several copies of every export.
// The hint only sizes the buffer; the caller's limits still hold.
func readSized(r io.Reader, sizeHint int64) ([]byte, error) {
	if sizeHint <= 0 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, min(sizeHint, presizeAtMost)+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // a body longer than announced: grow as io.ReadAll does
		}
	}
}

func isMaxBytes(err error) bool {
	var maxBytes *http.MaxBytesError
	return errors.As(err, &maxBytes)
}

func writeBodyError(w http.ResponseWriter, err error) {
	var be *bodyError
	if errors.As(err, &be) {
		writeError(w, be.status, be.reason, be.message)
		return
	}
	writeError(w, http.StatusBadRequest, reasonMalformed, err.Error())
}
