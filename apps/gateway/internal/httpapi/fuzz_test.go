package httpapi

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzEnrollBody: any body either fails to parse, fails validation with a message, or yields a
// request whose every field is within the stored bounds.
func FuzzEnrollBody(f *testing.F) {
	seed, _ := json.Marshal(enrollBody("spe_0123456789abcdef0123456789abcdef", "machine-a"))
	f.Add(seed)
	f.Add([]byte(`{"token":"spe_x","machineId":"m","hostname":"h","os":"windows"}`))
	f.Add([]byte(`{"os":"linux","extra":[1,2,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var req enrollRequest
		if json.Unmarshal(body, &req) != nil {
			return
		}
		if err := req.validate(); err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal without a message")
			}
			return
		}
		for _, v := range []string{req.Token, req.MachineID, req.Hostname, req.OS, req.OSVersion, req.Kernel, req.Arch, req.AgentVersion} {
			if utf8.RuneCountInString(v) > maxFieldRunes {
				t.Fatalf("a field of %d characters passed validation", utf8.RuneCountInString(v))
			}
		}
		if req.OS != "linux" && req.OS != "windows" {
			t.Fatalf("os %q passed validation", req.OS)
		}
	})
}

// FuzzFrameLimiter: any byte stream, split anywhere, never panics the WebSocket frame scanner.
func FuzzFrameLimiter(f *testing.F) {
	f.Add([]byte{0x82, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0}, uint8(3))
	f.Add([]byte{0x02, 0xfe, 0xff, 0xff, 1, 2, 3, 4}, uint8(1))
	f.Add([]byte{0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint8(5))
	f.Fuzz(func(t *testing.T, stream []byte, split uint8) {
		limiter := &frameLimiter{limit: 1 << 20}
		cut := int(split) % (len(stream) + 1)
		if limiter.scan(stream[:cut]) == nil {
			_ = limiter.scan(stream[cut:])
		}
	})
}
