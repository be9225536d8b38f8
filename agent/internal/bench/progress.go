package bench

// Side names a pass's state of the acceleration features.
type Side string

const (
	Off Side = "off"
	On  Side = "on"
)

// Phase is where a run is.
type Phase string

const (
	PhasePreparing Phase = "preparing" // checking paths and space, writing the data files
	PhaseRunning   Phase = "running"   // measuring load steps
	PhaseCleaning  Phase = "cleaning"  // removing the run's files
	PhaseDone      Phase = "done"
)

// Progress is reported at every phase change and step start, and a few times per step.
type Progress struct {
	Phase Phase `json:"phase"`
	// Pass is 1-based (0 while preparing); Passes is how many passes are planned so far: 1
	// without A/B; with A/B the warm-up pass plus 4 per off/on/on/off block begun.
	Pass   int  `json:"pass"`
	Passes int  `json:"passes"`
	Side   Side `json:"side,omitempty"` // the features' state in this pass
	// WarmUp marks the warm-up pass (measured, kept, never compared); Block is the 1-based
	// off/on/on/off block the pass belongs to (0 for the warm-up and without A/B).
	WarmUp bool `json:"warmUp,omitempty"`
	Block  int  `json:"block,omitempty"`
	// Step is 1-based within the pass; Steps per pass.
	Step      int    `json:"step"`
	Steps     int    `json:"steps"`
	StepLabel string `json:"stepLabel,omitempty"`
	// TargetHalfWidthPercent is the interval half-width the run aims at and
	// WidestHalfWidthPercent the widest step interval after the last finished block (null until
	// two blocks are done); TimeLimitSeconds is the request's limit. A/B only.
	TargetHalfWidthPercent float64  `json:"targetHalfWidthPercent,omitempty"`
	WidestHalfWidthPercent *float64 `json:"widestHalfWidthPercent,omitempty"`
	TimeLimitSeconds       float64  `json:"timeLimitSeconds,omitempty"`
	// Fraction is the share of the whole run done, 0 to 1: of the time limit for A/B (the run
	// may use all of it), of the planned time otherwise.
	Fraction float64 `json:"fraction"`
	Message  string  `json:"message,omitempty"`
}
