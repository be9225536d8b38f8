package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

var (
	// ErrUnknownCredential: no agent holds this credential (never issued, or rotated away).
	ErrUnknownCredential = errors.New("unknown agent credential")
	// ErrRevokedCredential: the agent was revoked in the console.
	ErrRevokedCredential = errors.New("revoked agent credential")
	// ErrExpiredCredential: the credential passed its expiry without being renewed. It wraps
	// ErrRevokedCredential so every place that ends a revoked agent's session ends this one too.
	ErrExpiredCredential = fmt.Errorf("expired agent credential: %w", ErrRevokedCredential)
	// ErrServerRevoked: enrolment of a machine whose server was revoked; revoked stays revoked
	// until an admin allows re-enrolment in the console.
	ErrServerRevoked = errors.New("the server's agent was revoked")
	// ErrIdentityTaken: an enrolment token may not take over an existing server's identity
	// without that server's current credential or an admin allowing re-enrolment.
	ErrIdentityTaken = errors.New("the machine is already enrolled")
	// ErrTokenUnknown, ErrTokenExpired, ErrTokenRevoked: an enrolment token that buys nothing.
	ErrTokenUnknown = errors.New("unknown enrolment token")
	ErrTokenExpired = errors.New("expired enrolment token")
	ErrTokenRevoked = errors.New("revoked enrolment token")
)

// IsUnavailable tells a database that cannot be reached or is going away (the caller should
// answer 503 and the agent retry later) from a database that rejected what was sent.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return transientSQLState(pgErr.Code)
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) ||
		errors.As(err, &netErr) ||
		pgconn.Timeout(err) ||
		pgconn.SafeToRetry(err) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// transientSQLState: connection exceptions (08), insufficient resources (53), operator
// intervention such as a shutdown (57P01-57P05), and serialisation failures or deadlocks (40)
// succeed when tried again later. Everything else is about the data or the SQL.
func transientSQLState(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57P"),
		strings.HasPrefix(code, "40"):
		return true
	}
	return false
}
