package dbdetect

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// HostRegistry reads HKEY_LOCAL_MACHINE (the 64-bit view for the 64-bit agent).
func HostRegistry() Registry { return hostRegistry{} }

type hostRegistry struct{}

func (hostRegistry) Values(key string) (map[string]string, error) {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, key, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer k.Close()
	names, err := k.ReadValueNames(-1)
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	for _, name := range names {
		if v, _, err := k.GetStringValue(name); err == nil { // other types are not paths
			values[name] = v
		}
	}
	return values, nil
}
