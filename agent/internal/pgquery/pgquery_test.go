package pgquery

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestQuotedValuesReadBackUnchanged sends awkward strings through Literal and Identifier to a
// real server, with standard_conforming_strings on and off, and reads them back.
func TestQuotedValuesReadBackUnchanged(t *testing.T) {
	dsn := os.Getenv("SPINDLE_TEST_DATABASE_URL")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("SPINDLE_TEST_DATABASE_URL is not set (CI runs the PostgreSQL tests)")
		}
		t.Skip(`SPINDLE_TEST_DATABASE_URL is not set: run eval "$(bash scripts/test-db.sh start)" first`)
	}
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, conforming := range []string{"on", "off"} {
		if err := Exec(ctx, conn, "SET standard_conforming_strings = "+conforming); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"shop", `o'brien`, `back\slash\`, `\'; DROP TABLE x; --`, "ünïcode", `"quoted"`} {
			lit, err := Literal(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Value(ctx, conn, "SELECT "+lit+" AS "+Identifier(s))
			if err != nil || got != s {
				t.Errorf("standard_conforming_strings=%s: %s read back as %q, %v", conforming, lit, got, err)
			}
			results, err := Query(ctx, conn, "SELECT 1 AS "+Identifier(s)+"; SELECT NULL, 'x'")
			if err != nil || len(results) != 2 || string(results[0][0][0]) != "1" || results[1][0][0] != nil || string(results[1][0][1]) != "x" {
				t.Errorf("two statements: %v, %v", results, err)
			}
		}
	}
	if _, err := Literal("a\x00b"); err == nil {
		t.Error("a NUL character was quoted")
	}
	if _, err := Value(ctx, conn, "SELECT 1, 2"); err == nil {
		t.Error("two columns read as one value")
	}
}
