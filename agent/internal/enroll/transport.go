package enroll

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Resolver is what CheckTransport asks for a gateway host's addresses (net.DefaultResolver in
// the agent; a fixed table in tests).
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// CheckTransport refuses a plain-http gateway on another host unless allowHTTP: the token, the
// credential it buys and the telemetry would cross the network unencrypted. http:// is accepted
// without the flag when the host is this machine: a loopback address, or a name that resolves
// only to loopback addresses (the default `npm start` gateway, http://<hostname>:4318, on the
// gateway's own machine). The same rule as install.sh's.
func CheckTransport(ctx context.Context, resolver Resolver, gateway string, allowHTTP bool) error {
	u, err := url.Parse(gateway)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--gateway %q is not a URL: give the gateway's address, e.g. https://spindle.example.com:4318", gateway)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
	default:
		return fmt.Errorf("--gateway must be an https:// URL (or http:// to this host), got %q", gateway)
	}
	if allowHTTP {
		return nil
	}
	host := u.Hostname()
	if local, resolved := onlyLoopback(ctx, resolver, host); !local {
		return fmt.Errorf("refusing the plain-http gateway %q on another host%s: the token, the agent's credential and its telemetry would cross the network unencrypted. "+
			"Use the gateway's https:// URL, or pass --allow-http if this network is trusted", gateway, resolved)
	}
	return nil
}

// onlyLoopback reports whether every address host resolves to is a loopback address, and
// describes what it resolved to for the error message.
func onlyLoopback(ctx context.Context, resolver Resolver, host string) (bool, string) {
	if strings.EqualFold(host, "localhost") {
		return true, ""
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback(), ""
	}
	addrs, err := resolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		return false, fmt.Sprintf(" (%s does not resolve here)", host)
	}
	all := make([]string, 0, len(addrs))
	local := true
	for _, a := range addrs {
		all = append(all, a.IP.String())
		local = local && a.IP.IsLoopback()
	}
	return local, fmt.Sprintf(" (%s is %s)", host, strings.Join(all, ", "))
}
