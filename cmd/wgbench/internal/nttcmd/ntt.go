package nttcmd

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// NewNTT returns the ntt command.
func NewNTT(g *cli.Globals) *cobra.Command {
	var (
		fieldName, in, out string
		logN, n            int
		inverse, coset     bool
	)
	cmd := &cobra.Command{
		Use:   "ntt --field F (--log2 K | --n N) [--inverse] [--coset] --in FILE [--out FILE]",
		Short: "Number-theoretic transform of rows of field elements, on the GPU",
		Long: `ntt transforms each row of --in (rows of N = 2^K canonical little-endian
elements of --field: uint32 for babybear and koalabear, uint64 for goldilocks,
one row after another) with the number-theoretic transform, on the GPU, and
writes the rows in the same format to --out (or stdout). Order is natural in
and out.

The transform is gnark-crypto's fft.Domain of size N with its defaults (the
root fft.Generator(N), the coset generator GeneratorFullMultiplicativeGroup):
forward A[j] = sum_i a[i]·w^(i·j); --inverse its inverse (scaled by 1/N);
--coset evaluates on, or interpolates from, the coset g·<w>. N runs from 2 up
to the field's two-adicity: 2^27 for babybear, 2^24 for koalabear, 2^32 for
goldilocks (as far as the device holds a row).

Input is validated in full before anything runs; --out never holds a partial
result. --backend cpu transforms on all cores with gnark-crypto.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := ntt.Options{Inverse: inverse, Coset: coset}
			if fieldName == (field.Goldilocks{}).Name() {
				return nttFile(cmd, g, field.Goldilocks{}, logN, n, o, in, out)
			}
			f, err := nttField(fieldName)
			if err != nil {
				return err
			}
			return nttFile(cmd, g, f, logN, n, o, in, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&fieldName, "field", "", "the elements' field: babybear, koalabear (uint32) or goldilocks (uint64) (required)")
	fl.IntVar(&logN, "log2", 0, "rows of 2^K elements")
	fl.IntVar(&n, "n", 0, "rows of N elements, a power of two")
	fl.BoolVar(&inverse, "inverse", false, "the inverse transform (scaled by 1/N)")
	fl.BoolVar(&coset, "coset", false, "on the coset g·<w> (gnark-crypto's fft.OnCoset)")
	fl.StringVar(&in, "in", "", "input file: rows of little-endian elements (required)")
	fl.StringVar(&out, "out", "", "output file (default: stdout)")
	cmd.MarkFlagRequired("field")
	cmd.MarkFlagRequired("in")
	return cmd
}

// nttFile transforms the rows of file in (elements of f) and writes them
// to out: rows of 2^logN elements where the flag --log2 was given, else of
// n (--n).
func nttFile[E field.Element](cmd *cobra.Command, g *cli.Globals, f field.Field[E], logN, n int, o ntt.Options, in, out string) error {
	switch {
	case cmd.Flags().Changed("log2") == cmd.Flags().Changed("n"):
		return fmt.Errorf("ntt: give one of --log2 K and --n N, the row length 2^K = N")
	case cmd.Flags().Changed("n"):
		var err error
		if logN, err = ntt.LogOf(f, n); err != nil {
			return fmt.Errorf("ntt: --n %d: %w", n, err)
		}
	default:
		if err := ntt.CheckLog(f, logN); err != nil {
			return fmt.Errorf("ntt: --log2 %d: %w", logN, err)
		}
	}
	data, err := readRows[E](g, "ntt", f, in, 1<<logN, 2, 0, "")
	if err != nil {
		return err
	}
	devices := g.OpenSoon(0)
	defer devices.Close()
	ctx, err := firstContext(devices)
	if err != nil {
		return err
	}
	if err := ntt.Transform(ctx, f, data, logN, o); err != nil {
		return err
	}
	return writeRows(cmd, "ntt", out, data)
}

// nttField returns the 31-bit field named name, for ntt and encode, which
// take goldilocks before asking.
func nttField(name string) (field.Monty31, error) {
	f, err := field.ParseField(name)
	if err != nil {
		return f, fmt.Errorf("--field %q: accepted are babybear, koalabear and goldilocks", name)
	}
	return f, nil
}

// readRows reads path, whole rows of n canonical little-endian elements
// of f (of E), into memory, and checks every element, each error naming
// what was wrong. size, when not 0, is the input's size in bytes the
// command was told (encode's --matrix), and an input that passes it is
// refused as soon as it does; else the input is bounded by host memory,
// of which the command needs times the input (a stream, joined from its
// pieces once read, once more).
func readRows[E field.Element](g *cli.Globals, name string, f field.Field[E], path string, n int, times float64, size int64, shape string) ([]E, error) {
	rowBytes := n * int(unsafe.Sizeof(E(0)))
	mem := float64(g.HostMemory())
	limit, streamLimit := int64(mem/times), int64(mem/(times+1))
	why := fmt.Sprintf("%s can transform in the host memory available (it needs up to %.3g times the input, a pipe or device once more)", name, times)
	if size != 0 {
		if need := float64(size) * times; need > mem {
			return nil, fmt.Errorf("%s: %s needs %s of host memory (%.3g times its %s), over the %s available",
				name, shape, bytesize.Tenths(int64(need)), times, bytesize.Tenths(size), bytesize.Tenths(int64(mem)))
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() != 0 && fi.Size() != size {
			return nil, fmt.Errorf("%s: %s is %d bytes: %s is %d bytes", name, path, fi.Size(), shape, size)
		}
		limit, streamLimit, why = size, size, shape+" holds"
	}
	raw, err := cli.ReadInputStream(path, limit, streamLimit, why)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(raw)%rowBytes != 0 {
		return nil, fmt.Errorf("%s: %s is %d bytes, not a whole number of rows of %d bytes (%d elements): row %d has only %d bytes",
			name, path, len(raw), rowBytes, n, len(raw)/rowBytes, len(raw)%rowBytes)
	}
	data := cli.AsElements[E](raw)
	if i, err := ntt.CheckElements(f, data); err != nil {
		return nil, fmt.Errorf("%s: %s: row %d, element %d: %w", name, path, i/n, i%n, err)
	}
	return data, nil
}

// firstContext waits for the devices and returns the first, or nil for
// the CPU backend.
func firstContext(o *cli.Opening) (*wgpu.Context, error) {
	grp, err := o.Wait()
	if err != nil || grp == nil {
		return nil, err
	}
	return grp.Contexts()[0], nil
}

// writeRows writes data's elements, little-endian, to path (atomically)
// or to stdout.
func writeRows[E field.Element](cmd *cobra.Command, name, path string, data []E) error {
	out := cli.DigestsAsBytes[E](data)
	if path == "" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	if err := cli.WriteOutput(path, out); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
