package merkle

// What the external tests force: the variants internal/base/impl registers
// (variants.go), by their values.

type Approach = approach

const (
	LevelPerDispatch = levelPerDispatch
	WorkgroupLevels  = workgroupLevels
	Subtrees         = subtrees
)

var (
	Approaches    = approaches
	ParseApproach = parseApproach
)

// WithApproach returns o building the levels as a says.
func (o Options) WithApproach(a Approach) Options { o.approach = a; return o }

// WithPassPerLevel returns o with a compute pass per level.
func (o Options) WithPassPerLevel() Options { o.passPerLevel = true; return o }

// WithDeviceTop returns o building every level on the device.
func (o Options) WithDeviceTop() Options { o.deviceTop = true; return o }

// Approach returns o's approach (0: the default).
func (o Options) Approach() Approach { return o.approach }

// PassPerLevel reports whether o has a compute pass per level.
func (o Options) PassPerLevel() bool { return o.passPerLevel }

// HostOptions returns options with HostWidth w, or for w = -1 every
// level on the device (the "merkle-top" variant "device").
func HostOptions(w int) Options {
	if w == -1 {
		return Options{deviceTop: true}
	}
	return Options{HostWidth: w}
}
