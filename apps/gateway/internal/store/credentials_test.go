package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCredentialsCacheExpiresAndNeverCachesFailures(t *testing.T) {
	now := time.Unix(1000, 0)
	lookups := 0
	var answer error
	c := NewCredentials(func(_ context.Context, hash []byte) (Agent, error) {
		lookups++
		if answer != nil {
			return Agent{}, answer
		}
		return Agent{ID: string(hash)}, nil
	}, 10*time.Second, 2)
	c.now = func() time.Time { return now }
	ctx := context.Background()

	for i := 0; i < 3; i++ {
		if _, err := c.Check(ctx, []byte("a")); err != nil {
			t.Fatal(err)
		}
	}
	if lookups != 1 {
		t.Fatalf("%d lookups within the TTL, want 1", lookups)
	}
	// Revoked meanwhile: still trusted until the TTL ends, refused right after.
	answer = ErrRevokedCredential
	now = now.Add(9 * time.Second)
	if _, err := c.Check(ctx, []byte("a")); err != nil {
		t.Fatalf("within the TTL: %v", err)
	}
	now = now.Add(2 * time.Second)
	if _, err := c.Check(ctx, []byte("a")); !errors.Is(err, ErrRevokedCredential) {
		t.Fatalf("after the TTL: %v, want revoked", err)
	}
	if _, err := c.Check(ctx, []byte("a")); !errors.Is(err, ErrRevokedCredential) || lookups != 3 {
		t.Fatalf("a failure was cached (lookups %d, err %v)", lookups, err)
	}

	// Bounded: with two live entries a third credential is checked but not remembered.
	answer = nil
	for _, k := range []string{"b", "c", "d"} {
		if _, err := c.Check(ctx, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.entries) > 2 {
		t.Fatalf("%d entries, bound is 2", len(c.entries))
	}
}
