//go:build !windows

package upgrade

const exeSuffix = ""
