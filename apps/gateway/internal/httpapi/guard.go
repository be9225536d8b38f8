package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
)

const reasonRateLimited = "rate_limited"

// DefaultBodyReadTimeout bounds how long a client may take to send its body. The body is read
// before the request takes an admission slot, so a slow sender holds only its own connection.
const DefaultBodyReadTimeout = 10 * time.Second

// readBodyFirst reads and bounds the body under its own deadline, before any admission slot or
// database work: a client trickling its body cannot hold a slot others need.
func (s *server) readBodyFirst(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	rc := http.NewResponseController(w)
	// Not every writer supports deadlines (httptest recorders); the server's ReadTimeout still holds then.
	_ = rc.SetReadDeadline(time.Now().Add(s.bodyReadTimeout))
	body, err := readBody(w, r, limit)
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, &bodyError{status: http.StatusRequestTimeout, reason: reasonMalformed,
			message: fmt.Sprintf("the request body did not arrive within %s; send the whole body at once", s.bodyReadTimeout), cause: err}
	}
	return body, err
}

// allowAddr applies the per-address rate limit and answers 429 when it is spent.
func (s *server) allowAddr(w http.ResponseWriter, r *http.Request) bool {
	ok, wait := s.perAddr.allow(clientAddr(r, s.trustedProxies))
	if !ok {
		writeRateLimited(w, wait, "this address sends requests faster than the gateway's per-address limit")
	}
	return ok
}

// allowCredential applies the per-credential rate limit (keyed on the credential's hash, so the
// limiter never holds a secret).
func (s *server) allowCredential(w http.ResponseWriter, secret string) bool {
	ok, wait := s.perCredential.allow(string(credential.Hash(secret)))
	if !ok {
		writeRateLimited(w, wait, "this agent credential sends requests faster than the gateway's per-credential limit")
	}
	return ok
}

func writeRateLimited(w http.ResponseWriter, wait time.Duration, why string) {
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	writeJSON(w, http.StatusTooManyRequests, errorBody{Reason: reasonRateLimited,
		Error: fmt.Sprintf("%s; keep the data and retry after %d s (Retry-After)", why, seconds)})
}

func writeOverloaded(w http.ResponseWriter) {
	writeError(w, http.StatusTooManyRequests, reasonOverloaded, "the gateway is busy; retry after the Retry-After seconds")
}
