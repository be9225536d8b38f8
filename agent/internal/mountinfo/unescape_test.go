package mountinfo

import "testing"

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/mnt/with\040space`:  "/mnt/with space",
		`/tab\011and\012line`: "/tab\tand\nline",
		`/back\134slash`:      `/back\slash`,
		`/plain`:              "/plain",
		`/short\04`:           `/short\04`,
		`/not\09octal`:        `/not\09octal`,
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
