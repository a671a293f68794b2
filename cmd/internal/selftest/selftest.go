// Package selftest checks that a GPU computes what wgcompute's CPU
// reference computes: for fixed seeds it runs every kernel family and
// variant on a Context and compares the outputs with golden digests
// generated from the CPU reference and embedded in the binary.
//
// Integer families (BLAKE3, the Goldilocks field, Rescue, Poseidon2, Merkle
// trees) must match bit for bit: each case's output bytes are hashed with
// BLAKE3 and the digest compared. The eigenvalue solver works in float32 and adds in
// a different order on each variant, so its results are compared with the
// float64 reference within a stated tolerance, and the report says how many
// leading significand bits agree.
//
// The families are a table of values (Families); a test may replace one
// with a deliberately wrong kernel to see the check fail.
package selftest

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/wgpu"
)

// A Family is one kernel family's self-test.
type Family struct {
	// Name names the family in reports and in the golden file.
	Name string
	// Tolerance is the largest relative error accepted for Values
	// outputs (see Output); zero means the family's outputs are digests,
	// compared exactly.
	Tolerance float64
	// Run runs every case with every variant on ctx, or once on the CPU
	// backend when ctx is nil, and returns one Output per variant and
	// case. An error is a failure of the whole family; an error of one
	// variant belongs in that variant's Output.Err.
	Run func(ctx *wgpu.Context) ([]Output, error)
	// Reference computes the golden outputs; nil means Run(nil). Eigen's
	// is the float64 reference, more precise than its CPU backend.
	Reference func() ([]Output, error)
}

// Output is one case's result on one variant.
type Output struct {
	// Variant names the kernel variant ("lanes4", "subtrees"), "cpu" on
	// the CPU backend.
	Variant string
	// Case is the golden file's key: the mode, size or operation
	// ("keyed/len=1025"), the same for every variant.
	Case string
	// Digest is the hex BLAKE3 of the case's output bytes (Digest), for
	// families compared exactly.
	Digest string
	// Values are the case's results, for families compared within
	// Tolerance.
	Values []float64
	// Err, when set, says why the variant produced no result; the family
	// fails.
	Err error
}

// Digest returns the hex BLAKE3 hash of b: what Output.Digest holds.
func Digest(b []byte) string {
	d := blake3.Sum256(b)
	return hex.EncodeToString(d[:])
}

// Want is a case's golden result: a digest, or reference values.
type Want struct {
	Digest string
	Values []float64
}

// MarshalJSON writes a digest as a JSON string and values as an array,
// so that the golden file reads as a table of cases.
func (w Want) MarshalJSON() ([]byte, error) {
	if w.Values != nil {
		return json.Marshal(w.Values)
	}
	return json.Marshal(w.Digest)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (w *Want) UnmarshalJSON(b []byte) error {
	*w = Want{}
	if len(b) > 0 && b[0] == '[' {
		return json.Unmarshal(b, &w.Values)
	}
	return json.Unmarshal(b, &w.Digest)
}

// Golden holds the expected results: family name, then case, then Want.
type Golden map[string]map[string]Want

//go:embed testdata/golden.json
var goldenJSON []byte

// LoadGolden returns the golden results embedded in the package
// (testdata/golden.json).
func LoadGolden() (Golden, error) {
	return ParseGolden(goldenJSON)
}

// goldenFile is the file's layout: a note for whoever opens it, then the
// results.
type goldenFile struct {
	Note     string `json:"note"`
	Families Golden `json:"families"`
}

// ParseGolden reads a golden file.
func ParseGolden(b []byte) (Golden, error) {
	var f goldenFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("selftest: golden file: %w", err)
	}
	if len(f.Families) == 0 {
		return nil, fmt.Errorf("selftest: golden file holds no families")
	}
	return f.Families, nil
}

// MarshalGolden writes g as a golden file.
func MarshalGolden(g Golden) ([]byte, error) {
	b, err := json.MarshalIndent(goldenFile{
		Note:     "Generated from the CPU reference by `go test ./cmd/internal/selftest -update`; do not edit.",
		Families: g,
	}, "", "\t")
	if err != nil {
		return nil, fmt.Errorf("selftest: golden file: %w", err)
	}
	return append(b, '\n'), nil
}

// MakeGolden computes the golden results of fams from their CPU
// references.
func MakeGolden(fams []Family) (Golden, error) {
	g := Golden{}
	for _, f := range fams {
		ref := f.Reference
		if ref == nil {
			ref = func() ([]Output, error) { return f.Run(nil) }
		}
		outs, err := ref()
		if err != nil {
			return nil, fmt.Errorf("selftest: %s reference: %w", f.Name, err)
		}
		cases := map[string]Want{}
		for _, o := range outs {
			if o.Err != nil {
				return nil, fmt.Errorf("selftest: %s reference, %s: %w", f.Name, o.Case, o.Err)
			}
			w := Want{Digest: o.Digest, Values: o.Values}
			if prev, ok := cases[o.Case]; ok && !sameWant(prev, w) {
				return nil, fmt.Errorf("selftest: %s reference gives two results for %s", f.Name, o.Case)
			}
			cases[o.Case] = w
		}
		g[f.Name] = cases
	}
	return g, nil
}

func sameWant(a, b Want) bool {
	if a.Digest != b.Digest || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if math.Float64bits(a.Values[i]) != math.Float64bits(b.Values[i]) {
			return false
		}
	}
	return true
}

// The verdicts a Result's and a Report's Status hold.
const (
	// StatusPass: every case matched the reference.
	StatusPass = "pass"
	// StatusMismatch: the adapter computed results that differ from the
	// reference.
	StatusMismatch = "mismatch"
	// StatusError: the adapter could not compile or run the kernels
	// (a pipeline the device refused, a validation error, a lost device),
	// so nothing it would compute was compared.
	StatusError = "error"
)

// Result is one family's verdict on one adapter.
type Result struct {
	Family string `json:"family"`
	Pass   bool   `json:"pass"`
	// Status is StatusPass, StatusMismatch (some output differs from the
	// reference, whatever else failed) or StatusError (kernels failed
	// to compile or run, and every output produced matched).
	Status string `json:"status"`
	// Error is the first error of a kernel that did not compile or run.
	Error string `json:"error,omitempty"`
	// Variants lists the variants run, Cases how many outputs were
	// checked.
	Variants []string `json:"variants"`
	Cases    int      `json:"cases"`
	// Tolerance is the family's (zero: bit for bit).
	Tolerance float64 `json:"tolerance,omitempty"`
	// Bits gives, for families compared within a tolerance, the fewest
	// leading significand bits that agree with the reference in any
	// variant, per case.
	Bits map[string]int `json:"agreeing_bits,omitempty"`
	// Failures describe each mismatch or error (the first 20).
	Failures []string `json:"failures,omitempty"`
	Seconds  float64  `json:"seconds"`
}

// maxFailures bounds the mismatches a Result lists.
const maxFailures = 20

// Check runs f on ctx (nil: the CPU backend) and compares its outputs with
// golden. A panic in f is a failure, reported as such.
func Check(ctx *wgpu.Context, f Family, golden Golden) (r Result) {
	r = Result{Family: f.Name, Tolerance: f.Tolerance}
	start := time.Now()
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	mismatch := false
	fail := func(format string, args ...any) {
		mismatch = true
		if len(r.Failures) < maxFailures {
			// One line each: wgpu's validation errors span several.
			msg := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
			r.Failures = append(r.Failures, msg)
		} else if len(r.Failures) == maxFailures {
			r.Failures = append(r.Failures, "(more failures not listed)")
		}
	}
	// failed records a kernel that produced nothing: no comparison was
	// made, so it is no mismatch.
	failed := func(format string, args ...any) {
		m := mismatch
		fail(format, args...)
		mismatch = m
		if r.Error == "" {
			r.Error = strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
		}
	}
	defer func() {
		if p := recover(); p != nil {
			failed("panic: %v", p)
		}
		r.Pass = len(r.Failures) == 0
		switch {
		case r.Pass:
			r.Status = StatusPass
		case mismatch:
			r.Status = StatusMismatch
		default:
			r.Status = StatusError
		}
	}()
	want, ok := golden[f.Name]
	if !ok || len(want) == 0 {
		fail("no golden results for family %q", f.Name)
		return r
	}
	outs, err := f.Run(ctx)
	if err != nil {
		failed("%v", err)
		return r
	}
	seen := map[string]bool{}  // cases checked, by any variant
	known := map[string]bool{} // variants
	for _, o := range outs {
		if !known[o.Variant] {
			known[o.Variant] = true
			r.Variants = append(r.Variants, o.Variant)
		}
		if o.Err != nil {
			failed("%s %s: %v", o.Variant, o.Case, o.Err)
			continue
		}
		w, ok := want[o.Case]
		if !ok {
			fail("%s %s: no golden result for this case", o.Variant, o.Case)
			continue
		}
		seen[o.Case] = true
		r.Cases++
		if f.Tolerance == 0 {
			if o.Digest != w.Digest {
				fail("%s %s: digest %.16s…, want %.16s…", o.Variant, o.Case, o.Digest, w.Digest)
			}
			continue
		}
		bits, msg := within(o.Values, w.Values, f.Tolerance)
		if msg != "" {
			fail("%s %s: %s", o.Variant, o.Case, msg)
		}
		if r.Bits == nil {
			r.Bits = map[string]int{}
		}
		if b, ok := r.Bits[o.Case]; !ok || bits < b {
			r.Bits[o.Case] = bits
		}
	}
	var missing []string
	for c := range want {
		if !seen[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 && len(r.Failures) == 0 {
		sort.Strings(missing)
		fail("%d golden cases were not run (%s, …)", len(missing), missing[0])
	}
	return r
}

// within compares got with want: every |got[i]-want[i]| must be at most
// tol times the largest |want[j]|. It returns the fewest leading
// significand bits that agree (relative to each want[i], at most 53) and a
// message when the comparison fails.
func within(got, want []float64, tol float64) (bits int, msg string) {
	if len(got) != len(want) {
		return 0, fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	bits = 53
	worst, at := 0.0, -1
	for i := range got {
		d := math.Abs(got[i] - want[i])
		if !(d <= tol*scale) { // NaN fails too
			if at < 0 || !(d <= worst) {
				worst, at = d, i
			}
		}
		bits = min(bits, agreeingBits(got[i], want[i]))
	}
	if at >= 0 {
		return bits, fmt.Sprintf("value %d is %.9g, want %.9g (error %.3g, tolerance %.3g)", at, got[at], want[at], worst/scale, tol)
	}
	return bits, ""
}

// agreeingBits is how many leading significand bits of got agree with
// want: -log2 of the relative error, from 0 to 53.
func agreeingBits(got, want float64) int {
	if got == want {
		return 53
	}
	rel := math.Abs(got-want) / math.Abs(want)
	if math.IsNaN(rel) || rel >= 1 {
		return 0
	}
	return min(53, int(math.Floor(-math.Log2(rel))))
}

// Report is the self-test of one adapter: what a user attaches to a bug.
type Report struct {
	Adapter wgpu.AdapterInfo `json:"adapter"`
	Pass    bool             `json:"pass"`
	// Status is StatusMismatch if any family's is, else StatusError if
	// any family's is or the adapter could not be opened, else
	// StatusPass.
	Status  string   `json:"status"`
	Results []Result `json:"results"`
	// Error is set when the adapter could not be opened.
	Error string `json:"error,omitempty"`
}

// File is the report of a self-test run, `wgbench selftest --json`'s
// file and what the browser's self-test returns: what a user attaches to
// a bug.
type File struct {
	Build    Build    `json:"build"`
	OS       string   `json:"os"`
	Arch     string   `json:"arch"`
	Time     string   `json:"time"`
	Pass     bool     `json:"pass"`
	Adapters []Report `json:"adapters"`
}

// NewFile starts the File of a run of this program, now: passing until a
// report that fails is added.
func NewFile() File {
	return File{Build: ReadBuild(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		Time: time.Now().UTC().Format(time.RFC3339), Pass: true}
}

// Add adds one adapter's report.
func (f *File) Add(r Report) {
	f.Pass = f.Pass && r.Pass
	f.Adapters = append(f.Adapters, r)
}

// Run checks every family on ctx (nil: the CPU backend), calling each (when
// not nil) with each family's result as it comes.
func Run(ctx *wgpu.Context, fams []Family, golden Golden, each func(Result)) Report {
	rep := Report{Adapter: ctx.Info(), Pass: true, Status: StatusPass}
	for _, f := range fams {
		r := Check(ctx, f, golden)
		rep.Pass = rep.Pass && r.Pass
		if r.Status == StatusMismatch || rep.Status == StatusPass {
			rep.Status = r.Status
		}
		rep.Results = append(rep.Results, r)
		if each != nil {
			each(r)
		}
	}
	return rep
}

// FirstError returns the first family whose kernels could not compile or
// run and its first error, or "", "" if there is none.
func (rep Report) FirstError() (family, err string) {
	for _, r := range rep.Results {
		if r.Error != "" {
			return r.Family, r.Error
		}
	}
	return "", ""
}

// Line is the result's one-line summary, PASS or FAIL first, then what was
// checked (or, for StatusError, that the kernels cannot compile or run,
// and the first error), then the adapter, its driver and its limits.
func (r Result) Line(info wgpu.AdapterInfo) string {
	var b strings.Builder
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s  %-9s ", verdict, r.Family)
	switch {
	case r.Status == StatusError:
		fmt.Fprintf(&b, "cannot compile or run kernels on this adapter: %s", r.Error)
	case r.Tolerance != 0:
		fmt.Fprintf(&b, "%d cases, %s, within %.0e of the float64 reference (agreeing bits: %s)",
			r.Cases, plural(len(r.Variants), "variant"), r.Tolerance, bitsSummary(r.Bits))
	default:
		fmt.Fprintf(&b, "%d cases, %s, bit for bit", r.Cases, plural(len(r.Variants), "variant"))
	}
	fmt.Fprintf(&b, ", %.2f s  [%s: %s", r.Seconds, info.Backend, info.Name)
	if info.Backend != wgpu.CPUInfo.Backend {
		driver := info.Driver
		if driver == "" {
			driver = "not reported"
		}
		fmt.Fprintf(&b, ", driver %s, limits %s", driver, LimitsString(info.Limits))
	}
	b.WriteString("]")
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// bitsSummary gives the fewest agreeing bits per kind of value, the part
// of the case name after its last slash ("value 22, vector 19").
func bitsSummary(bits map[string]int) string {
	kinds := map[string]int{}
	for c, n := range bits {
		k := c[strings.LastIndex(c, "/")+1:]
		if m, ok := kinds[k]; !ok || n < m {
			kinds[k] = n
		}
	}
	var parts []string
	for k, n := range kinds {
		parts = append(parts, fmt.Sprintf("%s ≥ %d", k, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// LimitsString summarises limits: the profile's name when they are one
// (webgpu), else the storage binding, buffer and workgroup-memory sizes
// and invocations per workgroup. The CPU has none.
func LimitsString(l wgpu.Limits) string {
	if l == (wgpu.Limits{}) {
		return "none"
	}
	for name, p := range wgpu.LimitProfiles {
		if l == p {
			return name
		}
	}
	return fmt.Sprintf("binding %s, buffer %s, workgroup %d KiB × %d invocations",
		bytesize.Format(l.MaxStorageBindingSize), bytesize.Format(l.MaxBufferSize), l.MaxWorkgroupStorage>>10, l.MaxInvocationsPerWorkgroup)
}

// Build describes the program that ran the self-test, from its build
// information: the module's version, the VCS revision when the binary
// records one, and the Go version.
type Build struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ReadBuild returns the running program's Build.
func ReadBuild() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Version: "unknown"}
	}
	b := Build{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// FallbackNote is the advice selftest prints once when the adapters it
// checked (those that opened) are all software renderers (lavapipe,
// llvmpipe, SwiftShader: the kernels ran on the CPU, many times slower
// than on a GPU), or, where no backend was chosen, all OpenGL: the
// default choice prefers Vulkan, so Vulkan was missing. It is "" when
// a hardware adapter on Vulkan (or a backend the user chose) was checked,
// and for the CPU backend, which is no adapter.
func FallbackNote(adapters []wgpu.AdapterInfo, backendChosen bool) string {
	software, gl, n := true, true, 0
	var names []string
	for _, a := range adapters {
		if a.Backend == "" || a.Backend == "cpu" {
			continue
		}
		n++
		software = software && a.Software()
		gl = gl && a.Backend == "gl"
		names = append(names, a.Name+" ("+a.Backend+")")
	}
	if n == 0 {
		return ""
	}
	which := strings.Join(names, ", ")
	switch {
	case gl && !backendChosen:
		note := "note: no Vulkan adapter was found, so this ran on OpenGL: " + which + "."
		if software {
			note += " It is a software renderer: the kernels ran on the CPU, slower than on a GPU."
		}
		return note + " Install the Vulkan loader and a driver: 'make setup' in a source checkout (it installs Mesa's lavapipe where no Vulkan driver is present), or your distribution's packages (libvulkan1 and mesa-vulkan-drivers on Debian and Ubuntu; NVIDIA's driver for NVIDIA GPUs)."
	case software:
		return "note: " + which + " is a software renderer: the kernels ran on the CPU, slower than on a GPU. For your GPU, install its Vulkan driver (mesa-vulkan-drivers on Debian and Ubuntu for AMD and Intel, NVIDIA's driver for NVIDIA) and check that 'wgbench devices' lists it."
	}
	return ""
}
