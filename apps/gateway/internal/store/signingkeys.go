package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RecordSigningKey records that this gateway signs with the P-256 public key point (migration
// 20261128150200_gateway_signing_keys): the console pins the keys gateways recorded recently in
// the Windows one-liner. No organisation: the key is the deployment's.
func (s *Store) RecordSigningKey(ctx context.Context, point []byte) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE spindle_gateway`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO gateway_signing_keys (algorithm, public_key) VALUES ('ecdsa-p256', $1)
			ON CONFLICT (algorithm, public_key) DO UPDATE SET last_seen_at = now()`, point)
		return err
	})
	if err != nil {
		return fmt.Errorf("record the gateway's signing key: %w", err)
	}
	return nil
}
