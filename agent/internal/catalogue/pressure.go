package catalogue

// Attribute keys and values of the pressure metrics.
const (
	AttrPressureResource = "spindle.pressure.resource" // memory, io
	AttrPressureScope    = "spindle.pressure.scope"    // some, full
)

// PressureStallTime is the PSI total stall time gained over the interval.
var PressureStallTime = FloatCounter{Metric{"spindle.pressure.stall_time", "s",
	"Time in which some (or all) non-idle tasks stalled on the resource (PSI total)."}}
