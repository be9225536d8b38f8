package wininstall

import (
	"strings"
	"testing"
)

// The access-list check install relies on, on the SDDL strings Windows and Wine print.
func TestCheckRestricted(t *testing.T) {
	for _, tc := range []struct {
		sddl, wantErr string
	}{
		{"O:BAG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", ""},
		{"D:P(A;OICI;FA;;;S-1-5-18)(A;OICI;FA;;;S-1-5-32-544)", ""},
		{"D:PAI(A;;FA;;;SY)(A;;FA;;;BA)(D;;FA;;;WD)", ""}, // a deny entry lets no one in
		{"D:AI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", "inherits from its parent"},
		// What Wine 8 reads back after install set the list: the Unix mode bits, Everyone may read.
		{"D:(A;OICI;FA;;;SY)(A;OICI;FA;;;S-1-5-21-0-0-0-1000)(A;OICI;0x1200a9;;;WD)", "inherits"},
		{"D:P(A;OICI;FA;;;SY)(A;OICI;0x1200a9;;;BU)", "lets BU in"},
		{"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;S-1-5-21-1-2-3-1001)", "lets S-1-5-21-1-2-3-1001 in"},
		{"O:BAG:SY", "has no access list"},
		{"D:P", "has no entries"},
	} {
		err := checkRestricted(tc.sddl)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.sddl, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.sddl, err, tc.wantErr)
		}
	}
}
