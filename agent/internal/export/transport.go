package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/spool"
)

// spoolTransport is the http.RoundTripper of the OTLP exporter's client: instead of sending,
// it stores the exact request body the official exporter encoded (protobuf, gzipped) with
// its Content-Encoding as a spool batch, and answers 200. Delivery is the forwarder's job,
// so a down gateway never blocks or loses a collection.
type spoolTransport struct {
	spool *spool.Spool
}

type seqKey struct{}

// withSeq carries the batch sequence number from Pipeline.Flush to RoundTrip through the
// request context: it is request-scoped and the exporter API has no other channel for it.
func withSeq(ctx context.Context, seq uint64) context.Context {
	return context.WithValue(ctx, seqKey{}, seq)
}

func (t *spoolTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	defer req.Body.Close()
	seq, ok := req.Context().Value(seqKey{}).(uint64)
	if !ok {
		return nil, errors.New("spool transport: request has no batch sequence number")
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("spool transport: read body: %w", err)
	}
	batch := spool.Batch{Seq: seq, ContentEncoding: req.Header.Get("Content-Encoding"), Body: body}
	if err := t.spool.Append(batch); err != nil {
		return nil, err
	}
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{},
		Body:          io.NopCloser(strings.NewReader("")),
		ContentLength: 0,
		Request:       req,
	}, nil
}
