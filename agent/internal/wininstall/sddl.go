package wininstall

import (
	"fmt"
	"regexp"
	"strings"
)

var aceTrustee = regexp.MustCompile(`\(([^;]*);[^;]*;[^;]*;[^;]*;[^;]*;([^)]*)\)`)

// checkRestricted checks an SDDL string's DACL: protected, and every allow entry for SYSTEM or
// Administrators (named or by SID, as systems differ in which they print).
func checkRestricted(sddl string) error {
	i := strings.Index(sddl, "D:")
	if i < 0 {
		return fmt.Errorf("has no access list (%s): everyone could read the credential", sddl)
	}
	dacl := sddl[i+2:]
	if !strings.HasPrefix(dacl, "P") {
		return fmt.Errorf("access list %s inherits from its parent", dacl)
	}
	aces := aceTrustee.FindAllStringSubmatch(dacl, -1)
	if len(aces) == 0 {
		return fmt.Errorf("access list %s has no entries", dacl)
	}
	for _, ace := range aces {
		switch ace[2] {
		case "SY", "S-1-5-18", "BA", "S-1-5-32-544":
		default:
			if ace[1] == "A" {
				return fmt.Errorf("access list %s lets %s in, not only SYSTEM and Administrators", dacl, ace[2])
			}
		}
	}
	return nil
}
