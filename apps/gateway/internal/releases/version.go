package releases

import (
	"regexp"
	"strconv"
	"strings"
)

// versionPattern is a release version (as agent/build-dist.sh stamps it and agent_releases
// checks it): major.minor.patch with an optional pre-release. It is also what makes a directory
// name safe to serve: no slashes, no "..".
var versionPattern = regexp.MustCompile(`^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$`)

// IsVersion says whether s is a release version.
func IsVersion(s string) bool {
	return versionPattern.MatchString(s) && !strings.Contains(s, "..") && !strings.HasSuffix(s, ".")
}

// Compare orders versions by semantic-version precedence (negative: a is older); the console's
// @spindle/domain compareAgentVersions orders them the same way.
func Compare(a, b string) int {
	coreA, preA, _ := strings.Cut(a, "-")
	coreB, preB, _ := strings.Cut(b, "-")
	pa, pb := strings.Split(coreA, "."), strings.Split(coreB, ".")
	for i := 0; i < 3 && i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return sign(x - y)
		}
	}
	switch {
	case preA == "" && preB == "":
		return 0
	case preA == "":
		return 1
	case preB == "":
		return -1
	}
	ia, ib := strings.Split(preA, "."), strings.Split(preB, ".")
	for i := 0; i < len(ia) && i < len(ib); i++ {
		x, errX := strconv.Atoi(ia[i])
		y, errY := strconv.Atoi(ib[i])
		switch {
		case errX == nil && errY == nil:
			if x != y {
				return sign(x - y)
			}
		case errX == nil:
			return -1
		case errY == nil:
			return 1
		default:
			if c := strings.Compare(ia[i], ib[i]); c != 0 {
				return c
			}
		}
	}
	return sign(len(ia) - len(ib))
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
