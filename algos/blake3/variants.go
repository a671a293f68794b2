package blake3

import (
	"embed"
	"fmt"

	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgsl"
)

// variant selects the chunk kernel. Every variant computes the same
// chaining values; they differ in how the 16 state words map onto vector
// registers. The zero value, variantDefault, is the fastest measured; the
// others exist to be measured against it, so they are not public: each is
// registered in internal/base/impl as "blake3" (the default first), where the
// benchmarks, the self-test and the tests list and force them by name.
type variant int

const (
	// variantDefault is the variant measured fastest on the GPU machine (see
	// variant.spec).
	variantDefault variant = iota
	// variantRows hashes one chunk per invocation with the state held as four
	// vec4<u32> rows and swizzles for the diagonal step.
	variantRows
	// variantLanes2 hashes 2 chunks per invocation, one per vec2 lane.
	variantLanes2
	// variantLanes4 hashes 4 chunks per invocation, one per vec4 lane.
	variantLanes4
	// variantLanes8 hashes 8 chunks per invocation: two groups of vec4 lanes.
	variantLanes8
	// variantLanes16 hashes 16 chunks per invocation: four groups of vec4 lanes.
	variantLanes16
)

// variants lists the variants (variantDefault, which names one of them,
// excluded), the default first.
var variants = []variant{variantRows, variantLanes2, variantLanes4, variantLanes8, variantLanes16}

// variantSpec is a variant's module, its chunk kernel's entry point and the
// chunks one invocation of it hashes.
type variantSpec struct {
	name   string
	module wgsl.Module
	entry  string
	perInv int
}

// measuredFiles are the chunk kernels kept to be measured against the
// product's (blake3.wgsl's chunks), apart from the product's files: only
// the variants below, forced through internal/base/impl, compile them.
//
//go:embed measured/*.wgsl
var measuredFiles embed.FS

// measured is the library of measuredFiles, whose files include the
// product's.
var measured = wgsl.NewSubLibrary("algos/blake3/measured", measuredFiles, "measured", shaders)

// laneModule is a lane kernel's module: file, of measured, with groups
// vectors per invocation.
func laneModule(file string, groups uint32) wgsl.Module {
	return wgsl.Module{Library: measured, Files: []string{file}, Consts: []wgsl.Const{{Name: "GROUPS", Value: groups}}}
}

var variantSpecs = [...]variantSpec{
	variantRows:    {"rows", wgsl.Module{Library: shaders, Files: []string{"blake3.wgsl"}}, "chunks", 1},
	variantLanes2:  {"lanes2", laneModule("blake3_lane2.wgsl", 1), "chunks_lanes", 2},
	variantLanes4:  {"lanes4", laneModule("blake3_lane4.wgsl", 1), "chunks_lanes", 4},
	variantLanes8:  {"lanes8", laneModule("blake3_lane4.wgsl", 2), "chunks_lanes", 8},
	variantLanes16: {"lanes16", laneModule("blake3_lane4.wgsl", 4), "chunks_lanes", 16},
}

// spec resolves variantDefault and checks v. variantDefault is
// variantRows, the fastest in BenchmarkVariants on NVIDIA (BENCHMARKS.md,
// "BLAKE3"; the figures in bench/results/HISTORY.md, "Figures moved from
// code comments"): the rows kernel keeps the fewest registers live, so
// the most warps hide the loads.
func (v variant) spec() (variantSpec, error) {
	if v == variantDefault {
		v = variantRows
	}
	if v < variantRows || int(v) >= len(variantSpecs) {
		return variantSpec{}, fmt.Errorf("blake3: unknown variant %d: accepted are %v", int(v), variants)
	}
	return variantSpecs[v], nil
}

// String names the variant as the registry and benchmarks do ("default",
// "rows", "lanes4", ...).
func (v variant) String() string {
	if v == variantDefault {
		return "default"
	}
	if s, err := v.spec(); err == nil {
		return s.name
	}
	return fmt.Sprintf("variant(%d)", int(v))
}

// init registers the variants in internal/base/impl as "blake3", the default
// first. Each one's value is a func(Options) Options that returns its
// argument with that variant's chunk kernel, which the self-test and the
// benchmarks apply to the Options they pass.
func init() {
	vs := make([]impl.Variant, len(variants))
	for i, v := range variants {
		vs[i] = impl.Variant{Name: v.String(), Impl: func(o Options) Options { o.variant = v; return o }}
	}
	impl.Register("blake3", vs)
}
