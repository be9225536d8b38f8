package wininstall

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// restrictedDACL gives full control to SYSTEM (the service's account) and Administrators only,
// inherited by everything created below; P (protected) drops what %ProgramData% would pass
// down (there, Users may read).
const restrictedDACL = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"

// restrict sets the restricted DACL on path and reads it back, so an install never reports a
// protection it does not have.
func restrict(path string) error {
	sd, err := windows.SecurityDescriptorFromString(restrictedDACL)
	if err != nil {
		return fmt.Errorf("build the access list: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("build the access list: %w", err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		return fmt.Errorf("restrict %s to SYSTEM and Administrators: %w", path, err)
	}
	return verifyRestricted(path)
}

// verifyRestricted reads path's DACL and checks that it is protected and grants only SYSTEM
// and Administrators.
func verifyRestricted(path string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("read the access list of %s: %w", path, err)
	}
	if err := checkRestricted(sd.String()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
