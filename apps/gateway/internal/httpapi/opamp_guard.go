package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// OpAMPLimits bound what the OpAMP endpoint accepts before opamp-go sees a byte of it.
type OpAMPLimits struct {
	// MaxMessageBytes bounds a plain-HTTP body (on the wire and gunzipped) and a WebSocket message.
	MaxMessageBytes int64
	// MaxConcurrent OpAMP requests (plain-HTTP polls, WebSocket upgrades) are handled at once,
	// MaxQueued more wait; a pool of their own, so an OpAMP storm cannot take ingest's slots.
	MaxConcurrent int
	MaxQueued     int
	// WriteTimeout bounds every write to a WebSocket: an agent that stops reading is dropped
	// instead of holding a push (and its connection's lock) forever.
	WriteTimeout time.Duration
}

// Defaults: a status report with its effective policy is a few KiB; 1 MiB leaves room.
const (
	DefaultOpAMPMaxMessageBytes = 1 << 20
	DefaultOpAMPMaxConcurrent   = 16
	DefaultOpAMPMaxQueued       = 64
	DefaultOpAMPWriteTimeout    = 10 * time.Second
)

func (l *OpAMPLimits) setDefaults() {
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = DefaultOpAMPMaxMessageBytes
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = DefaultOpAMPMaxConcurrent
	}
	if l.MaxQueued < 0 {
		l.MaxQueued = 0
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultOpAMPWriteTimeout
	}
}

// guardOpAMP puts OpAMP through the same gate as ingest (agentEndpoint, per-credential limit), a plain-HTTP
// body read and bounded (gunzipped too) under the body deadline before a slot is taken, its own
// admission pool, and for WebSockets a per-message read limit and a write deadline on the
// hijacked connection.
func (s *server) guardOpAMP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The address gate (agentEndpoint) wraps this; an agent is limited by its credential.
		if secret := bearerCredential(r); secret != "" && !s.allowCredential(w, secret) {
			return
		}
		webSocket := r.Header.Get("Content-Type") != "application/x-protobuf"
		if !webSocket {
			body, err := s.readBodyFirst(w, r, s.opampLimits.MaxMessageBytes)
			if err != nil {
				s.log.Info("OpAMP request refused", "remote", r.RemoteAddr, "error", err)
				writeBodyError(w, err)
				return
			}
			// opamp-go reads the body itself: hand it the bounded, already gunzipped bytes.
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.Header.Del("Content-Encoding")
		}
		release, ok := s.opampAdmission.acquire(r.Context())
		if !ok {
			writeOverloaded(w)
			return
		}
		defer release()
		if webSocket {
			// The slot covers authentication and the upgrade; the connection then lives on its own
			// goroutine, bounded per credential by the OpAMP server.
			next.ServeHTTP(&hijackLimiter{ResponseWriter: w, limits: s.opampLimits}, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hijackLimiter hands the WebSocket upgrade a connection that refuses oversized messages and
// puts a deadline on every write.
type hijackLimiter struct {
	http.ResponseWriter
	limits OpAMPLimits
}

func (h *hijackLimiter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	var pending []byte
	if n := rw.Reader.Buffered(); n > 0 {
		pending, _ = rw.Reader.Peek(n)
		pending = append([]byte(nil), pending...)
	}
	limited := &limitedConn{Conn: conn, pending: pending, frames: frameLimiter{limit: uint64(h.limits.MaxMessageBytes)},
		writeTimeout: h.limits.WriteTimeout}
	return limited, bufio.NewReadWriter(bufio.NewReader(limited), bufio.NewWriter(limited)), nil
}

func (h *hijackLimiter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// limitedConn is a hijacked WebSocket connection seen through frameLimiter.
type limitedConn struct {
	net.Conn
	pending       []byte
	frames        frameLimiter
	writeTimeout  time.Duration
	writeDeadline atomic.Int64 // the write deadline last set, Unix nanoseconds
}

func (c *limitedConn) Read(p []byte) (int, error) {
	var n int
	var err error
	if len(c.pending) > 0 {
		n = copy(p, c.pending)
		c.pending = c.pending[n:]
	} else {
		n, err = c.Conn.Read(p)
	}
	if ferr := c.frames.scan(p[:n]); ferr != nil {
		_ = c.Conn.Close()
		return 0, ferr
	}
	return n, err
}

// SetWriteDeadline replaces "no deadline" (what the WebSocket library sets before each write)
// with the configured timeout.
func (c *limitedConn) SetWriteDeadline(t time.Time) error {
	if t.IsZero() {
		t = time.Now().Add(c.writeTimeout)
	}
	c.writeDeadline.Store(t.UnixNano())
	return c.Conn.SetWriteDeadline(t)
}

// Write never waits longer than writeTimeout for a peer that stopped reading. gorilla/websocket
// sets the deadline itself right before each frame it writes (SetWriteDeadline above), so a
// write finding at least half the timeout left keeps that deadline instead of moving the
// connection's timer again: a push to 10,000 agents is 10,000 timer updates fewer.
func (c *limitedConn) Write(p []byte) (int, error) {
	if time.Now().Add(c.writeTimeout/2).UnixNano() > c.writeDeadline.Load() {
		_ = c.SetWriteDeadline(time.Time{})
	}
	return c.Conn.Write(p)
}

func (c *limitedConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// errMessageTooLarge ends a WebSocket whose message exceeds the limit.
var errMessageTooLarge = errors.New("OpAMP WebSocket message larger than the gateway's limit")

// frameLimiter follows WebSocket frame headers (RFC 6455 §5.2) in the byte stream from the client
// and fails once the data frames of one message add up to more than limit. Control frames
// (close, ping, pong) are at most 125 bytes and do not count.
type frameLimiter struct {
	limit     uint64
	header    []byte
	remaining uint64 // payload bytes of the current frame still to come
	message   uint64 // payload bytes of the current message so far
}

func (f *frameLimiter) scan(p []byte) error {
	for len(p) > 0 {
		if f.remaining > 0 {
			skip := min(f.remaining, uint64(len(p)))
			f.remaining -= skip
			p = p[skip:]
			continue
		}
		f.header = append(f.header, p[0])
		p = p[1:]
		need := 2
		if len(f.header) >= 2 {
			switch f.header[1] & 0x7f {
			case 126:
				need += 2
			case 127:
				need += 8
			}
			if f.header[1]&0x80 != 0 {
				need += 4 // masking key
			}
		}
		if len(f.header) < need {
			continue
		}
		fin, opcode := f.header[0]&0x80 != 0, f.header[0]&0x0f
		length := uint64(f.header[1] & 0x7f)
		switch length {
		case 126:
			length = uint64(f.header[2])<<8 | uint64(f.header[3])
		case 127:
			length = 0
			for _, b := range f.header[2:10] {
				length = length<<8 | uint64(b)
			}
		}
		f.header = f.header[:0]
		f.remaining = length
		if opcode >= 0x8 {
			continue // control frame
		}
		f.message += length
		if f.message > f.limit {
			return fmt.Errorf("%w (%d bytes): %d so far", errMessageTooLarge, f.limit, f.message)
		}
		if fin {
			f.message = 0
		}
	}
	return nil
}
