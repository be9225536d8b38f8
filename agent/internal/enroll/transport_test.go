package enroll

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

type fixedResolver map[string][]string

func (r fixedResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	out := make([]net.IPAddr, len(ips))
	for i, ip := range ips {
		out[i] = net.IPAddr{IP: net.ParseIP(ip)}
	}
	return out, nil
}

func TestCheckTransport(t *testing.T) {
	resolver := fixedResolver{
		"vm":         {"127.0.1.1"},
		"dual":       {"127.0.0.1", "::1"},
		"gw.lan":     {"10.0.0.7"},
		"half-local": {"127.0.0.1", "10.0.0.7"},
	}
	for _, tt := range []struct {
		gateway   string
		allowHTTP bool
		want      string // "" when accepted
	}{
		{"https://gw.example.com:4318", false, ""},
		{"http://127.0.0.1:4318", false, ""},
		{"http://[::1]:4318", false, ""},
		{"http://localhost:4318", false, ""},
		{"http://vm:4318", false, ""},
		{"http://dual:4318", false, ""},
		{"http://gw.lan:4318", false, `refusing the plain-http gateway "http://gw.lan:4318" on another host (gw.lan is 10.0.0.7)`},
		{"http://half-local:4318", false, "refusing the plain-http gateway"},
		{"http://nowhere:4318", false, "(nowhere does not resolve here)"},
		{"http://10.0.0.7:4318", false, "refusing the plain-http gateway"},
		{"http://gw.lan:4318", true, ""},
		{"ftp://gw.lan", true, "must be an https:// URL"},
		{"gw.lan:4318", false, "is not a URL"},
		{"", false, "is not a URL"},
	} {
		err := CheckTransport(context.Background(), resolver, tt.gateway, tt.allowHTTP)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s (allow %v): %v", tt.gateway, tt.allowHTTP, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s (allow %v): err %v, want %q", tt.gateway, tt.allowHTTP, err, tt.want)
		}
	}
}
