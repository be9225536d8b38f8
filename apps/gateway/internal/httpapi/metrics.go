package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// writeTimeout bounds the database work of one export; past it the database counts as down.
const writeTimeout = 15 * time.Second

// handleMetrics is POST /v1/metrics: authenticate (admitAgent: the cache, or a bounded lookup),
// read the body, take a write slot, decode, validate the whole request, then write it.
func (s *server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if relay := relayCredential(r); relay != "" {
		s.handleRelayedMetrics(w, r, relay)
		return
	}
	secret := bearerCredential(r)
	if secret == "" {
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"send the agent credential as 'Authorization: Bearer spa_…'; enrol the agent with 'spindle-agent enroll' to get one")
		return
	}
	agent, ok := s.admitAgent(w, r, secret, cachedCheck)
	if !ok {
		return
	}
	body, encoding, release, ok := s.receiveExport(w, r, "export refused")
	if !ok {
		return
	}
	defer release()

	ctx, cancel := context.WithTimeout(r.Context(), writeTimeout)
	defer cancel()
	log := s.log.With("org_id", agent.OrgID, "server_id", agent.ServerID, "agent_id", agent.ID)

	metrics, err := ingest.Decode(body, encoding)
	if err != nil {
		log.Warn("export refused", "error", err)
		writeError(w, http.StatusBadRequest, reasonMalformed, err.Error())
		return
	}
	if err := ingest.CheckBounds(metrics, s.bounds, time.Now()); err != nil {
		log.Warn("export refused", "error", err)
		writeError(w, http.StatusBadRequest, reasonOutOfBounds, "the batch was rejected and nothing was written: "+err.Error())
		return
	}
	if ingest.IsSourceExport(metrics) {
		s.writeSourceExport(ctx, w, r, log, agent, metrics, encoding)
		return
	}
	request, err := ingest.Map(metrics)
	if err != nil {
		log.Warn("export refused", "error", err)
		writeError(w, http.StatusBadRequest, reasonMalformed, "the batch was rejected and nothing was written: "+err.Error())
		return
	}

	var result store.WriteResult
	message := ""
	if len(request.Batches) > 0 {
		result, err = s.groupWrites.Write(ctx, agent, request.Batches)
		if err != nil {
			s.writeAuthError(w, r, err)
			return
		}
		message = s.noteSequence(w, agent, request.Batches, result)
	}
	log.Debug("export written", "batches", result.WrittenBatches, "duplicate_batches", result.DuplicateBatches,
		"disk_io_rows", result.DiskIORows, "memory_rows", result.MemoryRows, "deep_rows", result.DeepRows, "batch_hwm", result.BatchHWM,
		"ignored_points", request.IgnoredPoints)

	response, err := ingest.EncodeSuccess(encoding)
	if message != "" {
		response, err = ingest.EncodePartialSuccess(encoding, message)
	}
	writeExportResponse(w, log, encoding, response, err)
}

// writeAuthError answers a failed authentication or write.
func (s *server) writeAuthError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, store.ErrUnknownCredential):
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"the agent credential is unknown (never issued, or replaced by a later enrolment); re-enrol the agent with a new enrolment token")
	case errors.Is(err, store.ErrExpiredCredential):
		writeError(w, http.StatusUnauthorized, reasonCredentialExpired,
			"the agent credential expired without being renewed; an admin must choose \"Allow re-enrolment\" on the server's page, then re-enrol the agent")
	case errors.Is(err, store.ErrRevokedCredential):
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"the agent credential was revoked in the console and stays revoked; an admin can remove the server or allow re-enrolment on its page")
	case store.IsUnavailable(err):
		s.log.Warn("database unavailable", "path", r.URL.Path, "error", err)
		writeDatabaseUnavailable(w)
	default:
		s.log.Error("request failed", "path", r.URL.Path, "error", err)
		writeInternal(w)
	}
}

// receiveExport checks an OTLP export's media type, reads its body under its own deadline, and
// then takes a write slot: only a request that has fully arrived waits for one. It answers the
// request itself when it cannot go on (ok false); otherwise the caller releases the slot.
func (s *server) receiveExport(w http.ResponseWriter, r *http.Request, refused string) (body []byte, encoding ingest.Encoding, release func(), ok bool) {
	encoding, ok = ingest.EncodingForContentType(r.Header.Get("Content-Type"))
	if !ok {
		writeError(w, http.StatusUnsupportedMediaType, reasonUnsupportedMediaType,
			"Content-Type must be application/x-protobuf or application/json (OTLP/HTTP)")
		return nil, 0, nil, false
	}
	body, err := s.readBodyFirst(w, r, s.maxBodyBytes)
	if err != nil {
		s.log.Info(refused, "remote", r.RemoteAddr, "error", err)
		writeBodyError(w, err)
		return nil, 0, nil, false
	}
	if release, ok = s.writes.acquire(r.Context()); !ok {
		writeOverloaded(w)
		return nil, 0, nil, false
	}
	return body, encoding, release, true
}

// writeExportResponse sends an encoded OTLP export response, or a 500 when it could not be encoded.
func writeExportResponse(w http.ResponseWriter, log *slog.Logger, encoding ingest.Encoding, response []byte, err error) {
	if err != nil {
		log.Error("encode export response", "error", err)
		writeInternal(w)
		return
	}
	w.Header().Set("Content-Type", encoding.ContentType())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(response)
}
