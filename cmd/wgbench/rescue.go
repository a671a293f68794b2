package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

func init() {
	var (
		inPath, outPath, variant string
		elements                 int
	)
	parent := &cobra.Command{
		Use:   "rescue",
		Short: "Rescue Prime Rp64_256 (winterfell) merges and hash_elements on the GPU",
		Long: `rescue hashes Goldilocks field elements with Rp64_256 on the GPU.
Records are little-endian u64 field elements, each below p = 2^64 - 2^32 + 1;
digests are 4 such elements (32 bytes). Input is validated in full before
any output is written; --out is written to a temporary file and renamed.
WGCOMPUTE_BACKEND=cpu computes with the Go reference instead.`,
	}
	merge := &cobra.Command{
		Use:   "merge --in FILE [--out FILE]",
		Short: "Merge K pairs of digests: 64-byte records in, 32-byte digests out",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return rescueFileCmd(cmd, inPath, outPath, variant, 8)
		},
	}
	hash := &cobra.Command{
		Use:   "hash --elements M --in FILE [--out FILE]",
		Short: "hash_elements of K inputs of M elements: M*8-byte records in, 32-byte digests out",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if elements < 1 {
				return fmt.Errorf("rescue hash: --elements is %d: give the number of field elements per record, at least 1", elements)
			}
			return rescueFileCmd(cmd, inPath, outPath, variant, elements)
		},
	}
	for _, c := range []*cobra.Command{merge, hash} {
		c.Flags().StringVar(&inPath, "in", "", "input file of records (required)")
		c.Flags().StringVar(&outPath, "out", "", "output file (default: stdout)")
		c.Flags().StringVar(&variant, "variant", rescue.Fast.String(), "kernel variant, one of "+strings.Join(rescue.VariantNames(), ", "))
		c.MarkFlagRequired("in")
		parent.AddCommand(c)
	}
	hash.Flags().IntVar(&elements, "elements", 0, "field elements per record (required)")
	hash.MarkFlagRequired("elements")
	rootCmd.AddCommand(parent)
	registerSuite(suite{name: "rescue", about: "Rp64_256 merges and hash_elements per second, 128² to 4096² inputs, CPU reference on all cores; every kernel variant at 4096²", run: benchRescue})
}

// rescueFileCmd hashes the records of inPath (m elements each; m = 8 is a
// merge of two digests) and writes the digests to outPath or stdout.
func rescueFileCmd(cmd *cobra.Command, inPath, outPath, variant string, m int) error {
	name := "hash"
	if cmd.Name() == "merge" {
		name = "merge"
	}
	v, err := rescue.ParseVariant(variant)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(inPath)
	if err != nil {
		return fmt.Errorf("rescue %s: %w", name, err)
	}
	rec := 8 * m
	if len(raw)%rec != 0 {
		return fmt.Errorf("rescue %s: %s is %d bytes, not a whole number of %d-byte records: record %d has only %d bytes",
			name, inPath, len(raw), rec, len(raw)/rec, len(raw)%rec)
	}
	k := len(raw) / rec
	els := make([]uint64, k*m)
	for i := range els {
		els[i] = binary.LittleEndian.Uint64(raw[8*i:])
		if els[i] >= rescue.P {
			return fmt.Errorf("rescue %s: record %d element %d is %d, not a field element (must be below p = %d)",
				name, i/m, i%m, els[i], uint64(rescue.P))
		}
	}
	dst := make([][4]uint64, k)
	if k > 0 {
		if err := rescueDigests(dst, els, m, v, name == "merge"); err != nil {
			return err
		}
	}
	out := make([]byte, 32*k)
	for i, d := range dst {
		for j, e := range d {
			binary.LittleEndian.PutUint64(out[32*i+8*j:], e)
		}
	}
	if outPath == "" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	return writeFileAtomic(outPath, out)
}

// rescueDigests hashes the k = len(dst) records of m elements in els: on the
// GPU, or with the reference on all cores when WGCOMPUTE_BACKEND=cpu
// selects it. Merge records (m = 8) go through MergeMany, which equals
// HashElements of the eight elements.
func rescueDigests(dst [][4]uint64, els []uint64, m int, v rescue.Variant, merge bool) error {
	ctx, err := openContext()
	if errors.Is(err, wgpu.ErrCPUBackend) {
		cpuParallel(len(dst), func(i int) { dst[i] = rescue.HashElements(els[i*m : (i+1)*m]) })
		return nil
	}
	if err != nil {
		return err
	}
	defer ctx.Close()
	opts := rescue.Options{Variant: v}
	if merge {
		pairs := make([][8]uint64, len(dst))
		for i := range pairs {
			pairs[i] = [8]uint64(els[8*i:])
		}
		return rescue.MergeManyWith(ctx, dst, pairs, opts)
	}
	return rescue.HashElementsManyWith(ctx, dst, els, m, opts)
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so that path never holds a partial result.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// rescueHashElements is the element count per input in the hash_elements
// rows of the benchmark: a full state width, two permutations per input.
const rescueHashElements = 12

func benchRescue(ctx *wgpu.Context, cfg *benchConfig) ([]table, error) {
	sides := []int{128, 256, 512, 1024, 2048, 4096}
	if cfg.quick {
		// Smoke-test sizes: a software adapter merges about 4e4 per second.
		sides = []int{64, 128}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	timeKind := "GPU kernel time (timestamp queries)"
	if !ctx.Info().Timestamps {
		timeKind = "wall time of the submission (this adapter has no timestamp queries)"
	}
	t := table{Title: "Rescue Prime Rp64_256: merges and hash_elements per second", XLabel: "inputs", YLabel: "merges/s (kernel)", LogX: true,
		Columns: []string{"inputs", "merge ns (kernel)", "merges/s (kernel)", "merges/s (end to end)", fmt.Sprintf("hash_elements(%d)/s (kernel)", rescueHashElements), "hash_elements/s (end to end)", "V100 (article) merges/s", "kernel vs V100", "CPU ref merges/s (" + hostCPU() + ")", "kernel vs CPU", "checked"}}
	cpu := rescueCPURate(1 << 16)
	var vt table
	for _, side := range sides {
		n := side * side
		pairs := make([][8]uint64, n)
		for i := range pairs {
			for j := range pairs[i] {
				pairs[i][j] = rng.Uint64N(rescue.P)
			}
		}
		dst := make([][4]uint64, n)
		if err := rescue.MergeMany(ctx, dst, pairs); err != nil {
			return nil, err
		}
		for k := 0; k < min(n, 4096); k++ {
			i := k * (n / min(n, 4096))
			if dst[i] != rescue.Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
				return nil, fmt.Errorf("rescue merge %d: pair %d differs from the CPU reference", n, i)
			}
		}
		var st rescue.Stats
		kernel := func(st *rescue.Stats, wall time.Duration) time.Duration {
			if st.Measured {
				return st.Kernel
			}
			return wall
		}
		mk, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := rescue.MergeManyWith(ctx, dst, pairs, rescue.Options{Stats: &st})
			return kernel(&st, time.Since(start)), err
		})
		if err != nil {
			return nil, err
		}
		me, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := rescue.MergeMany(ctx, dst, pairs)
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		cfg.step(fmt.Sprintf("rescue merge %d", n))
		hn := n * 8 / rescueHashElements
		els := make([]uint64, 0, hn*rescueHashElements)
		for _, p := range pairs {
			els = append(els, p[:]...)
		}
		els = els[:hn*rescueHashElements]
		hdst := make([][4]uint64, hn)
		hk, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := rescue.HashElementsManyWith(ctx, hdst, els, rescueHashElements, rescue.Options{Stats: &st})
			return kernel(&st, time.Since(start)), err
		})
		if err != nil {
			return nil, err
		}
		he, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := rescue.HashElementsMany(ctx, hdst, els, rescueHashElements)
			return time.Since(start), err
		})
		if err != nil {
			return nil, err
		}
		if hdst[hn-1] != rescue.HashElements(els[(hn-1)*rescueHashElements:]) {
			return nil, fmt.Errorf("rescue hash %d: last input differs from the CPU reference", hn)
		}
		cfg.step(fmt.Sprintf("rescue hash %d", hn))
		rate := float64(n) / mk.Seconds()
		v100, vsV100 := "-", "-"
		if side == 4096 {
			v100, vsV100 = "2.03e+07 (49.3 ns)", fmt.Sprintf("%.2f×", rate/2.03e7)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d² = %d", side, n),
			fmt.Sprintf("%.2f", float64(mk.Nanoseconds())/float64(n)),
			fmt.Sprintf("%.3g", rate), fmt.Sprintf("%.3g", float64(n)/me.Seconds()),
			fmt.Sprintf("%.3g", float64(hn)/hk.Seconds()), fmt.Sprintf("%.3g", float64(hn)/he.Seconds()),
			v100, vsV100, fmt.Sprintf("%.3g", cpu), fmt.Sprintf("%.1f×", rate/cpu), "up to 4096 merges (evenly spaced) and the last hash equal to the CPU reference"})
		t.Points = append(t.Points, point{X: float64(n), Y: rate})
		if side == sides[len(sides)-1] {
			if vt, err = rescueVariantTable(ctx, cfg, pairs, dst, side, timeKind); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = []string{
		"Kernel: " + timeKind + ", summed over the dispatches of a call. End to end: validation, upload, kernels and read-back of host slices.",
		fmt.Sprintf("hash_elements rows hash inputs of %d elements (two permutations each), as many as fit in the merge input's elements.", rescueHashElements),
		fmt.Sprintf("CPU reference (plain Go, %d goroutines on this host): %.3g merges/s.", runtime.GOMAXPROCS(0), cpu),
		"Published: Tesla V100 (SYCL) 49.3 ns per merge, 2.03e7 merges/s at 4096²; Xeon 8358 about 1.4e6/s. Target here: 4e7 merges/s at 4096².",
	}
	return []table{t, vt}, nil
}

// rescueVariantTable times every kernel variant on the same pairs, side²
// of them, and checks a sample of each variant's digests.
func rescueVariantTable(ctx *wgpu.Context, cfg *benchConfig, pairs [][8]uint64, dst [][4]uint64, side int, timeKind string) (table, error) {
	n := len(pairs)
	t := table{Title: fmt.Sprintf("Rescue Prime Rp64_256: merge kernel variants at %d² inputs", side),
		Columns: []string{"variant", "kernel ms", "merge ns (kernel)", "merges/s (kernel)", "vs " + rescue.Fast.String(), "checked"}}
	var fast float64
	for _, v := range rescue.Variants {
		clear(dst)
		var st rescue.Stats
		opts := rescue.Options{Variant: v, Stats: &st}
		if err := rescue.MergeManyWith(ctx, dst, pairs, opts); err != nil {
			return t, fmt.Errorf("rescue variant %s: %w", v, err)
		}
		step := max(1, n/1024)
		for i := 0; i < n; i += step {
			if dst[i] != rescue.Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) {
				return t, fmt.Errorf("rescue variant %s: pair %d differs from the CPU reference", v, i)
			}
		}
		mk, err := median(cfg.repeats, func() (time.Duration, error) {
			start := time.Now()
			err := rescue.MergeManyWith(ctx, dst, pairs, opts)
			if st.Measured {
				return st.Kernel, err
			}
			return time.Since(start), err
		})
		if err != nil {
			return t, fmt.Errorf("rescue variant %s: %w", v, err)
		}
		cfg.step(fmt.Sprintf("rescue variant %s", v))
		rate := float64(n) / mk.Seconds()
		if v == rescue.Fast {
			fast = rate
		}
		t.Rows = append(t.Rows, []string{v.String(), fmt.Sprintf("%.3f", float64(mk.Microseconds())/1e3),
			fmt.Sprintf("%.2f", float64(mk.Nanoseconds())/float64(n)), fmt.Sprintf("%.3g", rate),
			fmt.Sprintf("%.2f×", rate/fast), fmt.Sprintf("%d evenly spaced merges equal to the CPU reference", (n+step-1)/step)})
	}
	t.Notes = []string{
		"Kernel: " + timeKind + ", median of the timed repeats.",
		"fast: 12 vec2<u32> values, round constants as literals, MDS by small constants in 16-bit limbs, inverse S-box by the addition chain. " +
			"densemds: MDS by full field products. libinv: the field library's inverse S-box. vec4: the state as three vec4 pairs (low words, high words). " +
			"arkstorage, arkuniform, arkworkgroup: round constants read from a storage buffer, from the parameters' uniform buffer, or from workgroup memory filled from a storage buffer at kernel start.",
	}
	return t, nil
}

// rescueCPURate is the CPU reference's merges per second on all cores.
func rescueCPURate(n int) float64 {
	out := make([][4]uint64, n)
	start := time.Now()
	cpuParallel(n, func(i int) { out[i] = rescue.Merge([4]uint64{uint64(i)}, [4]uint64{uint64(i), 1}) })
	return float64(n) / time.Since(start).Seconds()
}
