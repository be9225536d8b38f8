package catalogue

// Attribute keys and values of the pressure metrics.
const (
	AttrPressureResource = "spindle.pressure.resource" // memory, io
	AttrPressureScope    = "spindle.pressure.scope"    // some, full
)
