package httpapi

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a token bucket per key (client address or credential): Burst requests at once,
// then PerSecond on average. Keys idle long enough to have a full bucket again are forgotten, and
// the map never holds more than maxKeys, so a flood of distinct addresses cannot fill memory.
type rateLimiter struct {
	perSecond float64
	burst     float64
	maxKeys   int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// RateLimit is one limit: PerSecond requests on average, Burst at once. PerSecond 0 turns it off.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

const rateLimiterMaxKeys = 100_000

func newRateLimiter(limit RateLimit, now func() time.Time) *rateLimiter {
	if limit.PerSecond <= 0 {
		return nil
	}
	return &rateLimiter{perSecond: limit.PerSecond, burst: math.Max(1, float64(limit.Burst)),
		maxKeys: rateLimiterMaxKeys, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for key; when none is left it returns how long until one is.
// A nil limiter allows everything.
func (l *rateLimiter) allow(key string) (ok bool, retryAfter time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, found := l.buckets[key]
	if !found {
		if len(l.buckets) >= l.maxKeys {
			l.forgetFull(now)
		}
		if len(l.buckets) >= l.maxKeys {
			// Every tracked key is busy: refuse newcomers briefly rather than forget a busy key.
			return false, time.Second
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.perSecond)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.perSecond * float64(time.Second))
}

// exhausted reports whether key has no token left, and how long until it has one, without
// taking one: a request that may turn out to be a legitimate agent's looks first and pays only
// when it fails (charge). A nil limiter is never exhausted.
func (l *rateLimiter) exhausted(key string) (bool, time.Duration) {
	if l == nil {
		return false, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		return false, 0
	}
	tokens := math.Min(l.burst, b.tokens+l.now().Sub(b.at).Seconds()*l.perSecond)
	if tokens >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - tokens) / l.perSecond * float64(time.Second))
}

// charge takes a token for key after the fact (a failed authentication, a refused request);
// with none left the key simply stays exhausted.
func (l *rateLimiter) charge(key string) {
	_, _ = l.allow(key)
}

// forgetFull drops the keys whose bucket has refilled: they are as good as new.
func (l *rateLimiter) forgetFull(now time.Time) {
	for key, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.perSecond >= l.burst {
			delete(l.buckets, key)
		}
	}
}
