package agent

import (
	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// recordSpoolGauges puts the spool's backlog into the batch being made: what waits for the
// gateway's acknowledgement, before this interval's batch joins it. A spool that keeps growing
// while batches still arrive is an agent the gateway cannot keep up with (docs/alerts.md,
// "spool_growing"); batches made while the gateway was away carry the growth with them.
func recordSpoolGauges(sink collector.Sink, st spool.Stats) {
	sink.SetInt(catalogue.SpoolSize, st.Bytes) // held batches included
	sink.SetInt(catalogue.SpoolBatches, int64(st.Batches))
}
