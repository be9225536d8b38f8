package ingest

import (
	"fmt"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// BatchSeqAttribute is the resource attribute carrying the agent's batch sequence number.
const BatchSeqAttribute = "spindle.batch.seq"

// maxHostFieldRunes bounds what a resource attribute can put in a servers column. Longer values
// are cut rather than rejected: a verbose os.description must not cost a batch of telemetry.
const maxHostFieldRunes = 255

func batchSeq(resource otlp.Attributes) (int64, error) {
	v, ok := resource.Get(BatchSeqAttribute)
	if !ok {
		return 0, fmt.Errorf("resource attribute %s is missing: every ResourceMetrics must carry the agent's batch sequence number (int >= 1)", BatchSeqAttribute)
	}
	if v.Type != pcommon.ValueTypeInt {
		return 0, fmt.Errorf("resource attribute %s is a %s; it must be an int >= 1", BatchSeqAttribute, v.Type)
	}
	if v.Int < 1 {
		return 0, fmt.Errorf("resource attribute %s is %d; it must be >= 1", BatchSeqAttribute, v.Int)
	}
	return v.Int, nil
}

func hostInfo(resource otlp.Attributes) telemetry.HostInfo {
	text := func(key string) string {
		v, ok := resource.Get(key)
		if !ok {
			return ""
		}
		if utf8.ValidString(v.Str) && utf8.RuneCountInString(v.Str) <= maxHostFieldRunes {
			return v.Str // what the rune round trip below would give, without copying
		}
		runes := []rune(v.Str)
		if len(runes) > maxHostFieldRunes {
			runes = runes[:maxHostFieldRunes]
		}
		return string(runes)
	}
	return telemetry.HostInfo{
		Hostname:     text("host.name"),
		OS:           text("os.type"),
		OSVersion:    text("os.description"),
		Kernel:       text("spindle.os.kernel"),
		Arch:         text("host.arch"),
		AgentVersion: text("service.version"),
	}
}
