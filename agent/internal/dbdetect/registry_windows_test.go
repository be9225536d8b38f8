package dbdetect

import "testing"

// The real HKLM reads (on Windows, or under Wine in CI): a key every Windows has, and a key
// that is absent, which must read as empty rather than fail.
func TestHostRegistry(t *testing.T) {
	reg := HostRegistry()
	values, err := reg.Values(`SOFTWARE\Microsoft\Windows NT\CurrentVersion`)
	if err != nil || values["ProductName"] == "" {
		t.Fatalf("CurrentVersion: %v, %v; want its ProductName", values, err)
	}
	values, err = reg.Values(`SOFTWARE\Spindle\No Such Key`)
	if err != nil || len(values) != 0 {
		t.Fatalf("an absent key: %v, %v; want empty, no error", values, err)
	}
	if _, err := SQLServerInstances(reg); err != nil {
		t.Fatalf("SQL Server instances (none installed is an empty list): %v", err)
	}
}
