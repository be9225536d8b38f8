package credential

import "time"

// RenewDue says whether a credential issued at issuedAt and expiring at expiresAt should be
// renewed at now: once a third of its lifetime (or less) is left. With the default 90-day
// lifetime that is 60 days after issue, leaving 30 days of hourly attempts before it expires.
// An unknown expiry (a config written by enrolment or by an agent older than renewal) or an
// unknown issue time is due at once: the renewal answer tells the expiry, and renewing early
// costs one request.
func RenewDue(now, issuedAt, expiresAt time.Time) bool {
	if expiresAt.IsZero() || issuedAt.IsZero() || !issuedAt.Before(expiresAt) {
		return true
	}
	lifetime := expiresAt.Sub(issuedAt)
	return !now.Before(expiresAt.Add(-lifetime / 3))
}

// RenewAt is when RenewDue first becomes true; the zero time when it is due already.
func RenewAt(issuedAt, expiresAt time.Time) time.Time {
	if expiresAt.IsZero() || issuedAt.IsZero() || !issuedAt.Before(expiresAt) {
		return time.Time{}
	}
	return expiresAt.Add(-expiresAt.Sub(issuedAt) / 3)
}
