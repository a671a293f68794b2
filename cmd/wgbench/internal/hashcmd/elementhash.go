package hashcmd

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/impl"
)

// New builds a command for every command name of the registry's hashes
// with batch functions, with the subcommands merge and hash; where hashes
// of several fields share the name (poseidon2), --field chooses one, the
// Goldilocks one by default.
func New(g *cli.Globals) []*cobra.Command {
	var cmds []*cobra.Command
	for _, name := range registry.Commands() {
		var hs []registry.Hash
		for _, h := range registry.Batched() {
			if h.Command == name {
				hs = append(hs, h)
			}
		}
		cmds = append(cmds, newElementHashCmd(g, name, hs))
	}
	return cmds
}

// fieldNames returns the fields of hs, in order.
func fieldNames(hs []registry.Hash) []string {
	fs := make([]string, len(hs))
	for i, h := range hs {
		fs[i] = h.Field
	}
	return fs
}

// records31Help describes the records of a hash over a 31-bit field.
const records31Help = `Records are little-endian u32 elements, each canonical (below the field's p,
not in Montgomery form); a merge's record is a pair of digests, 64 bytes (16
elements), and a digest is 8 elements (32 bytes).`

// newElementHashCmd builds the command name over hs, the hashes it
// computes (the first the default, the others chosen with --field), with
// its subcommands merge and hash.
func newElementHashCmd(g *cli.Globals, name string, hs []registry.Hash) *cobra.Command {
	var (
		inPath, outPath, variant, fieldName string
		elements                            int
	)
	h := hs[0]
	records := `Records are little-endian u64 field elements, each below p = 2^64 - 2^32 + 1;
digests are 4 such elements (32 bytes).`
	what := "Goldilocks"
	if h.ElementBits() == 32 {
		what = "31-bit (" + strings.Join(fieldNames(hs), ", ") + ")"
		records = records31Help
	}
	long := name + " hashes " + what + " field elements on the GPU with " + h.About + "\n" + records + ` Input is validated in full before
any output is written; --out never holds a partial result (a file is written
beside it and renamed over it; a link is followed, a device written to).
--backend cpu computes on all cores instead. --variant runs one of the
kernel variants kept to be measured against the default (every variant
gives the same digests).`
	for _, o := range hs[1:] {
		long += "\n\n--field " + o.Field + ": " + o.About + "\n" + records31Help + ` Errors name the hash
(` + o.Name + `).`
	}
	pick := func() (registry.Hash, error) {
		for _, o := range hs {
			if o.Field == fieldName {
				return o, nil
			}
		}
		return registry.Hash{}, fmt.Errorf("%s: --field %q: accepted are %s", name, fieldName, strings.Join(fieldNames(hs), ", "))
	}
	parent := &cobra.Command{
		Use:   name,
		Short: h.Title + " merges and hash_elements on the GPU",
		Long:  long,
		Args:  cli.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	merge := &cobra.Command{
		Use:   "merge --in FILE [--out FILE]",
		Short: "Merge K pairs of digests: 64-byte records in, 32-byte digests out",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := pick()
			if err != nil {
				return err
			}
			return elementFileCmd(g, cmd, h, inPath, outPath, variant, 0)
		},
	}
	hash := &cobra.Command{
		Use:   "hash --elements M --in FILE [--out FILE]",
		Short: "hash_elements of K inputs of M elements: records of M elements in, 32-byte digests out",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := pick()
			if err != nil {
				return err
			}
			if elements < 1 || elements > maxElements {
				return fmt.Errorf("%s hash: --elements is %d: give the number of field elements per record, 1 to %d", h.Name, elements, maxElements)
			}
			return elementFileCmd(g, cmd, h, inPath, outPath, variant, elements)
		},
	}
	for _, c := range []*cobra.Command{merge, hash} {
		c.Flags().StringVar(&inPath, "in", "", "input file of records, - for standard input (required)")
		c.Flags().StringVar(&outPath, "out", "", "output file (default: stdout)")
		c.Flags().StringVar(&variant, "variant", impl.List(h.Name)[0], "kernel variant, one of "+strings.Join(impl.List(h.Name), ", "))
		c.MarkFlagRequired("in")
		parent.AddCommand(c)
	}
	if len(hs) > 1 {
		parent.PersistentFlags().StringVar(&fieldName, "field", h.Field, "the elements' field: "+strings.Join(fieldNames(hs), ", "))
	} else {
		fieldName = h.Field
	}
	hash.Flags().IntVar(&elements, "elements", 0, "field elements per record (required)")
	hash.MarkFlagRequired("elements")
	return parent
}

// maxElements bounds hash's --elements: the GPU kernels take inputs of at
// most 2^31 elements (16 GiB records).
const maxElements = 1 << 31

// elementFileCmd hashes the records of inPath (m elements each; m = 0 is
// a merge, of records of two digests) with h and writes the digests to
// outPath or stdout.
func elementFileCmd(g *cli.Globals, cmd *cobra.Command, h registry.Hash, inPath, outPath, variant string, m int) error {
	if h.ElementBits() == 32 {
		f, err := impl.Select[*batch.Monty31](h.Name, variant)
		if err != nil {
			return err
		}
		return elementFile(g, cmd, f, h, inPath, outPath, m)
	}
	f, err := impl.Select[*batch.Goldilocks](h.Name, variant)
	if err != nil {
		return err
	}
	return elementFile(g, cmd, f, h, inPath, outPath, m)
}

// elementFile is elementFileCmd with f, h's batch functions on the
// variant asked for, of elements of E (their little-endian bytes
// records are made of) and digests D.
func elementFile[E field.Element, D, P, S any](g *cli.Globals, cmd *cobra.Command, f *batch.Family[E, D, P, S], h registry.Hash, inPath, outPath string, m int) error {
	hashName := h.Name
	var (
		e E
		d D
	)
	es, ds := int(unsafe.Sizeof(e)), int(unsafe.Sizeof(d))
	name := "hash"
	if m == 0 {
		name, m = "merge", 2*ds/es
	}
	// The input and its elements (es bytes each, twice), the digests and
	// their bytes (32 each, twice) are in host memory at once: 2 + 32/(m*es)
	// times the input (3 for merges), bounded at 4 times or more.
	times := max(4, 2+float64(ds)/float64(m*es))
	// A merge is one permutation a record; a hash absorbs 8 elements a
	// permutation.
	perPermutation := float64(8 * es)
	if name == "merge" {
		perPermutation = float64(m * es)
	}
	devices := g.OpenSoon(cli.OneDeviceWork(h, inPath, perPermutation))
	defer devices.Close()
	raw, err := cli.ReadInput(inPath, int64(float64(g.HostMemory())/times),
		fmt.Sprintf("%s can hash in the host memory available (it needs up to %.3g times the input)", hashName, times))
	if err != nil {
		return fmt.Errorf("%s %s: %w", hashName, name, err)
	}
	rec, err := checked.Mul(es, m)
	if err != nil {
		return fmt.Errorf("%s %s: records of %d elements: %w bytes", hashName, name, m, err)
	}
	if len(raw)%rec != 0 {
		return fmt.Errorf("%s %s: %s is %d bytes, not a whole number of %d-byte records: record %d has only %d bytes",
			hashName, name, inPath, len(raw), rec, len(raw)/rec, len(raw)%rec)
	}
	k := len(raw) / rec
	els := cli.AsElements[E](raw)
	dst := make([]D, k)
	if k > 0 {
		grp, err := devices.Wait()
		if err != nil {
			return err
		}
		// A merge's record is a pair, on els viewed as pairs (not a copy).
		pairs := unsafe.Slice((*P)(unsafe.Pointer(unsafe.SliceData(els))), k)
		run := func(lo, hi int) error {
			if name == "merge" {
				return f.MergeMany(grp, dst[lo:hi], pairs[lo:hi], batch.Options{})
			}
			return f.HashElementsMany(grp, dst[lo:hi], els[lo*m:hi*m], m, batch.Options{})
		}
		check := func(lo, hi int) error {
			if name == "merge" {
				return f.CheckMerge(dst[lo:hi], pairs[lo:hi])
			}
			return f.CheckHash(dst[lo:hi], els[lo*m:hi*m], m)
		}
		// The records go in pieces, so that a progress bar moves and
		// Ctrl-C is answered between them; the digests do not depend on
		// where the pieces end. The library checks each piece's elements
		// before its kernels run, once, and its error names the first
		// that is not below p within the piece ("rescue: merge: pair 3
		// element 2 is ..."); only then is the whole input checked again,
		// so that the error counts records from the file's start. It
		// starts with the hash's name and is returned as it is; nothing
		// has been written by then.
		bar := cli.NewMeter(cmd, g, hashName+" "+name, int64(k), "records")
		err = cli.InPieces(cmd.Context(), bar, k, 1024, func(lo, hi int) error {
			err := run(lo, hi)
			if err != nil && check(lo, hi) != nil {
				return check(0, k)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	out := cli.DigestsAsBytes[E](dst)
	if outPath == "" {
		_, err := cmd.OutOrStdout().Write(out)
		return err
	}
	if err := cli.WriteOutput(outPath, out); err != nil {
		return fmt.Errorf("%s %s: %w", hashName, name, err)
	}
	return nil
}
