package merklecmd

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// isSchedule reports whether a --hash value names a schedule of several
// hashes ("blake3:4,rescue") rather than one hash.
func isSchedule(s string) bool { return strings.ContainsAny(s, ":,") }

// parseSchedule reads a --hash value, one hash or a schedule, as a
// schedule of the hashes the merkle commands offer.
func parseSchedule(s string) (merkle.Schedule, error) {
	if s == "" {
		return nil, errors.New("merkle: --hash is required: blake3, rescue, or a schedule such as blake3:4,rescue")
	}
	return merkle.ParseSchedule(s, parseHash)
}

// mixedBuild reads the leaves file and builds its mixed tree on the first
// device the flags open (or the CPU).
func mixedBuild(g *cli.Globals, schedule, in string, approach int) (*merkle.Tree, error) {
	s, err := parseSchedule(schedule)
	if err != nil {
		return nil, err
	}
	var tree *merkle.Tree
	err = leavesOn(g, in, 0, func(leaves [][32]byte, grp *sched.Group) error {
		opts, err := approachOptions(approach)
		if err != nil {
			return err
		}
		opts.Schedule = s
		tree, err = merkle.Build(firstDevice(grp), leaves, nil, opts)
		return err
	})
	return tree, err
}

// firstDevice returns the group's first Context (nil: the CPU). Mixed
// trees, and commitments to records or by a schedule, are built on one
// device.
func firstDevice(g *sched.Group) *wgpu.Context {
	if g == nil || g.Len() == 0 {
		return nil
	}
	return g.Contexts()[0]
}

// verifyMixed is merkle verify for a schedule: VerifyMixed against the
// trusted root and size where given, else against the proof's own with a
// warning, as merkleVerify does.
func verifyMixed(cmd *cobra.Command, schedule, proofIn, rootHex string, leaves int) error {
	s, err := parseSchedule(schedule)
	if err != nil {
		return err
	}
	if proofIn == "" {
		return errors.New("merkle verify: --proof FILE is required (a proof as printed by merkle prove)")
	}
	p, err := readProof(proofIn)
	if err != nil {
		return fmt.Errorf("merkle verify: %w", err)
	}
	tr, err := trustedTree(cmd, rootHex, leaves, p.Root, p.Leaves)
	if err != nil {
		return err
	}
	if _, err := s.Levels(tr.n); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: %v\n", proofIn, err)
		return cli.ExitError{Code: 1}
	}
	if !merkle.VerifyMixed(s, tr.root, tr.n, p) {
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: leaf %d of %d and its path of %d digests do not give root %x with the schedule %s\n", proofIn, p.Index, tr.n, len(p.Path), tr.root[:], s)
		return cli.ExitError{Code: 1}
	}
	tr.warn(cmd)
	return nil
}

// shape is a --matrix shape and the bytes of its file.
type shape struct{ rows, cols, bytes int }

// parseShape reads ROWSxCOLS ("1024x8") of elements of elemBytes bytes.
func parseShape(s string, elemBytes int) (shape, error) {
	r, c, ok := strings.Cut(strings.ToLower(s), "x")
	rows, errR := strconv.Atoi(r)
	cols, errC := strconv.Atoi(c)
	if !ok || errR != nil || errC != nil || rows < 1 || cols < 1 {
		return shape{}, fmt.Errorf("commit: --matrix %q: want ROWSxCOLS, as 1024x8 (rows a power of two, at least 2; 1 column or more)", s)
	}
	bytes, err := checked.Mul(rows, cols, elemBytes)
	if err != nil {
		return shape{}, fmt.Errorf("commit: --matrix %q: a matrix of little-endian uint%d of that shape has too many bytes: %w", s, 8*elemBytes, err)
	}
	return shape{rows, cols, bytes}, nil
}

// NewCommit returns the commit command.
func NewCommit(g *cli.Globals) *cobra.Command {
	var (
		matrices []string
		records  int
		hashName string
		ins      []string
		out      string
		approach int
		prove    int
		fieldArg string
		blowup   int
		scheme   string
		rate     int
		sisArg   string
		linea    lineaFlags
	)
	cmd := &cobra.Command{
		Use:   "commit (--matrix ROWSxCOLS --in FILE ... [--field F] [--blowup R] | --records SIZE --in FILE | --scheme vortex|linea --matrix ROWSxCOLS --in FILE [--rate R] [--sis D,B] [--no-sis] [--max-rows M]) [--hash H|SCHEDULE] [--out NODES] [--prove I]",
		Short: "Commit to a matrix of field elements or to byte records with a Merkle tree, leaves hashed on the GPU",
		Long: `commit builds a Merkle tree whose leaves it hashes itself, on the GPU (rows or
records hashed straight into the tree's leaf buffer), and prints the root in
hex.

--matrix ROWSxCOLS: --in holds a matrix of Goldilocks field elements, row by
row: ROWS x COLS little-endian uint64 values, each below p = 2^64 - 2^32 + 1
(ROWSxCOLSx8 bytes exactly; ROWS a power of two, at least 2). Leaf r is the
hash of row r: hash_elements of its COLS elements with --hash (` + hashList(registry.Goldilocks) + `;
Plonky3 commits rows with Poseidon2 this way). --hash defaults to ` + defaultHash(registry.Goldilocks) + `.

--field babybear or koalabear: the matrix holds elements of that 31-bit field
instead: ROWS x COLS little-endian uint32 values, each canonical (below p =
2013265921 for BabyBear, 2130706433 for KoalaBear; not Montgomery form, in
which Plonky3 serializes them), ROWSxCOLSx4 bytes. The hash is poseidon2
(the default there; no schedule), as Plonky3's MMCS commits them: rows
through PaddingFreeSponge<Poseidon2-16, 16, 8, 8>, merges through
TruncatedPermutation<Poseidon2-16, 2, 8, 16>. A digest, and the root
printed, is 8 canonical elements, the hex of their little-endian uint32s
(as a Goldilocks root is the hex of its four little-endian uint64s). Its
--prove output is a proof of the row's leaf that 'merkle verify --hash
poseidon2-babybear' (or -koalabear) checks. --hash poseidon2-babybear alone
chooses --field babybear. --field goldilocks, the default, is the matrix
above.

Several --matrix ROWSxCOLS --in FILE pairs, in that order, commit to matrices
of different power-of-two heights in one tree, as Plonky3's MMCS does: the
tree has as many leaves as the tallest matrix has rows, leaf i is the hash of
row i of the tallest matrices (their rows concatenated in the order given),
and at each level as wide as some matrices are tall each node is merged again
with the hash of their rows. Such a tree takes one hash (no schedule) and no
--prove: its proofs open a row of every matrix (merkle.VerifyMatrices).

--blowup R (2, 4, 8 or 16) commits what Plonky3's TwoAdicFriPcs commits for
one --matrix (a polynomial per column, its ROWS values on the subgroup of
that order, in natural order): the matrix extended by R (coset_lde_batch on
the coset GENERATOR·<W>, W of order ROWSxR, gnark-crypto's root, which for
BabyBear is Plonky3's two_adic_generator), its ROWSxR rows in bit-reversed
order (bit_reverse_rows), each row a leaf as above. The matrix goes up once;
the extension is made and committed on the GPU and never leaves it. --prove I
opens row I of the extended matrix.

--records SIZE: --in holds N records of SIZE bytes each (N x SIZE bytes; N
at least 1, any count, as merkle takes leaves, and a power of two for a
schedule). Leaf i is the BLAKE3 hash of record i. --hash defaults to ` + defaultHash(registry.Bytes) + `.

--hash takes one hash or a schedule: blake3:4,rescue merges the lowest 4
levels with BLAKE3 and the levels above with Rescue (BLAKE3 digests enter the
Rescue levels as their four little-endian words reduced mod p). The leaf hash
is the schedule's first.

With --devices (all, a count or adapter indices), matrices committed with
one hash split over the GPUs, each building the subtrees of its rows, where
half of one GPU's estimated time (the upload and the permutations) saves
more than opening a second costs; records and schedules are committed on
the first. The root and the nodes are the same bits on any number of GPUs.

--out writes the nodes as merkle --out does (for N a power of two N x 32
bytes, node 0 zero, node 1 the root; with --out -, standard output holds
the nodes alone and the root goes to standard error);
--prove I prints the JSON proof of leaf I instead of the root, which
'wgbench merkle verify --hash H' checks (with the same H).

--scheme vortex --rate R --sis LOGDEG,LOGBOUND --matrix ROWSxCOLS --in FILE
commits to ROWS x COLS canonical KoalaBear elements (little-endian uint32)
with gnark-crypto's Vortex (its field/koalabear/vortex, v0.22.0), bit for
bit: rows Reed-Solomon encoded at inverse rate R (2, 4 or 8; COLS a power of
two), columns hashed with ring-SIS (sis.NewRSis(0, LOGDEG, LOGBOUND, ROWS)),
each digest into a leaf by gnark-crypto's width-24 Poseidon2 sponge, the
leaves into a Merkle tree by its Poseidon2 compression. This is not the
commitment Linea's prover makes: that one (its vortex_koalabear package)
hashes leaves and tree nodes with a Merkle-Damgard Poseidon2 hasher, so its
roots differ: it is --scheme linea. The root prints as 8 canonical elements,
the hex of their little-endian uint32s.

--scheme linea takes the same flags and commits as Linea's prover does
(linea-monorepo's prover/crypto/vortex/vortex_koalabear,
Params.CommitMerkleWithSIS): rows encoded at inverse rate R (a power of two
from 2; the prover uses 2 and 16), the codewords' columns hashed with
sis.NewRSis(42069, LOGDEG, LOGBOUND, M) (M is --max-rows, the parameters'
maximum, ROWS by default; it fixes the SIS key), each digest into a leaf by
Linea's Merkle-Damgard hasher over gnark-crypto's Poseidon2 compression,
the leaves into Linea's smt_koalabear tree. --no-sis hashes the columns
themselves into the leaves (CommitMerkleWithoutSIS; the prover's rounds of
fewer than 512 rows). A row of one value throughout is committed as a
constant row (Linea's smartvectors.Constant), with the same bits. The root
prints as --scheme vortex's does; 'wgbench open' opens several such
commitments of a round.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := linea.checkScheme(cmd, scheme); err != nil {
				return err
			}
			if scheme == "linea" {
				return commitLinea(cmd, g, &linea, matrices, ins, rate, sisArg)
			}
			if cmd.Flags().Changed("scheme") {
				return commitVortex(cmd, g, scheme, matrices, ins, rate, sisArg)
			}
			for _, f := range []string{"rate", "sis"} {
				if cmd.Flags().Changed(f) {
					return fmt.Errorf("commit: --%s is a flag of --scheme vortex; a Merkle tree (no --scheme) takes no --%s", f, f)
				}
			}
			if cmd.Flags().Changed("prove") && out != "" && fileout.Same(out, "-") {
				return errors.New("commit: --out - and --prove would both write standard output: give --out a file")
			}
			spin := cli.NewSpinner(cmd, g, "commit: building the tree")
			tree, err := commitFiles(cmd, g, matrices, records, hashName, fieldArg, ins, approach, blowup)
			spin.Done()
			if err != nil {
				return err
			}
			// Ctrl-C during the build: nothing is written.
			if err := cli.Interrupted(cmd.Context()); err != nil {
				return err
			}
			if out != "" {
				if err := cli.WriteOutput(out, wgpu.Bytes(tree.Nodes())); err != nil {
					return fmt.Errorf("commit: %w", err)
				}
			}
			if cmd.Flags().Changed("prove") {
				if len(matrices) > 1 {
					return errors.New("commit: --prove opens one matrix or the records: the proofs of several matrices open a row of each (merkle.MatricesOpening and VerifyMatrices in Go)")
				}
				p, err := tree.Proof(prove)
				if err != nil {
					return err
				}
				return printProof(cmd.OutOrStdout(), p)
			}
			root := tree.Root()
			_, err = fmt.Fprintln(rootOutput(cmd, out), hex.EncodeToString(root[:]))
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&matrices, "matrix", nil, "commit to a matrix of ROWSxCOLS field elements (little-endian, row by row: "+fieldElements()+"); repeat with --in for several")
	f.IntVar(&records, "records", 0, "commit to records of SIZE bytes")
	f.StringVar(&hashName, "hash", "", "hash or schedule: "+defaultHashes()+", or as blake3:4,rescue")
	f.StringArrayVar(&ins, "in", nil, "input file (one per --matrix)")
	f.StringVar(&out, "out", "", "write the tree's nodes to this file, as merkle --out does")
	f.IntVar(&approach, "approach", 0, "1: a dispatch per level, 2: workgroup levels, 3: subtrees in workgroup memory (default: fastest)")
	f.IntVar(&prove, "prove", 0, "print the JSON proof of leaf I instead of the root")
	f.StringVar(&fieldArg, "field", registry.Goldilocks, "the matrix's field: "+fieldElements()+" (canonical values)")
	f.IntVar(&blowup, "blowup", 0, "commit to the matrix's columns extended by R (2, 4, 8, 16) on a coset, rows bit-reversed, as Plonky3's PCS commits a trace")
	f.StringVar(&scheme, "scheme", "", "vortex: gnark-crypto's Vortex commitment of a KoalaBear matrix (canonical values) instead of a Merkle tree; linea: the Vortex of Linea's prover")
	f.IntVar(&rate, "rate", 2, "--scheme: the Reed-Solomon code's inverse rate: 2, 4 or 8 for vortex, a power of two from 2 for linea (refused without --scheme)")
	f.StringVar(&sisArg, "sis", "9,16", "--scheme: the SIS instance, LOGDEG,LOGBOUND (refused without --scheme)")
	linea.register(f)
	return cmd
}

// hashList names the registry's hashes of field, "a, b or c".
func hashList(field string) string {
	names := registry.Names(registry.Of(field))
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// defaultHash names the registry's default hash of field.
func defaultHash(field string) string {
	h, _ := registry.Default(field)
	return h.Name
}

// fieldElements lists the registry's fields with their elements, for
// --matrix and --field: "goldilocks: uint64, babybear: uint32, ...".
func fieldElements() string {
	var parts []string
	for _, f := range registry.Fields() {
		parts = append(parts, f.Name+": "+f.Element())
	}
	return strings.Join(parts, ", ")
}

// defaultHashes names commit's default hashes, the registry's: for
// --matrix of each field and for --records.
func defaultHashes() string {
	var parts []string
	for _, f := range registry.Fields() {
		if h, err := registry.Default(f.Name); err == nil {
			parts = append(parts, fmt.Sprintf("%s (default for --matrix of %s)", h.Name, f.Name))
		}
	}
	if h, err := registry.Default(registry.Bytes); err == nil {
		parts = append(parts, h.Name+" (default for --records)")
	}
	return strings.Join(parts, ", ")
}

// commitFiles reads the --in files and commits to them as the flags say.
func commitFiles(cmd *cobra.Command, g *cli.Globals, matrices []string, size int, hashName, fieldName string, ins []string, approach, blowup int) (*merkle.Tree, error) {
	isMatrix, isRecords := len(matrices) > 0, cmd.Flags().Changed("records")
	if isMatrix == isRecords {
		return nil, errors.New("commit: give one of --matrix ROWSxCOLS (field elements) and --records SIZE (byte records)")
	}
	if len(ins) == 0 {
		return nil, errors.New("commit: --in FILE is required")
	}
	if isRecords && len(ins) > 1 {
		return nil, errors.New("commit: --records takes one --in FILE")
	}
	if isMatrix && len(ins) != len(matrices) {
		return nil, fmt.Errorf("commit: %d --matrix shapes and %d --in files: give one file per matrix, in the same order", len(matrices), len(ins))
	}
	in := ins[0]
	if hashName == "" {
		field := registry.Bytes
		if isMatrix {
			field = registry.Goldilocks
		}
		h, err := registry.Default(field)
		if err != nil {
			return nil, err
		}
		hashName = h.Name
	}
	rows31, err := parseField31(fieldName, hashName, cmd.Flags().Changed("hash"), isRecords)
	if err != nil {
		return nil, err
	}
	var s merkle.Schedule
	elemBytes := 8
	if rows31 != nil {
		s, elemBytes = merkle.Schedule{{Hash: rows31}}, 4
	} else if s, err = parseSchedule(hashName); err != nil {
		return nil, err
	}
	shapes := make([]shape, len(matrices))
	for k, m := range matrices {
		if shapes[k], err = parseShape(m, elemBytes); err != nil {
			return nil, err
		}
	}
	if err := checkBlowup(cmd.Flags().Changed("blowup"), blowup, len(matrices), len(s)); err != nil {
		return nil, err
	}
	if isRecords && size < 1 {
		return nil, fmt.Errorf("commit: --records %d: a record has 1 byte or more", size)
	}
	// Every flag is checked before the inputs are read.
	opts, err := approachOptions(approach)
	if err != nil {
		return nil, err
	}
	// Matrices committed with one hash split over the devices where a
	// second one pays (commitWork); records and schedules are built on
	// one.
	var work time.Duration
	if isMatrix && len(s) == 1 && blowup == 0 {
		work = commitWork(s[0].Hash.Name(), shapes)
	}
	devices := g.OpenSoon(work)
	defer devices.Close()
	// The input, the tree's leaves and nodes (64 bytes a leaf), and for a
	// matrix the elements decoded.
	limit := g.HostMemory() / 3 / int64(len(ins))
	raws := make([][]byte, len(ins))
	for k, path := range ins {
		if raws[k], err = cli.ReadInput(path, limit, "a commitment's input can take here (its tree takes host memory too)"); err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
	}
	raw := raws[0]
	grp, err := devices.Wait()
	if err != nil {
		return nil, err
	}
	if rows31 != nil && blowup != 0 {
		return commitExtended(grp, rows31, raws, shapes, ins, blowup, opts)
	}
	if rows31 != nil {
		return commit31(grp, rows31, raws, shapes, ins, opts)
	}
	var ms []merkle.Matrix[uint64]
	var rowHash merkle.RowHash[uint64]
	if isMatrix {
		var ok bool
		if rowHash, ok = s[0].Hash.(merkle.RowHash[uint64]); !ok {
			return nil, fmt.Errorf("commit: --matrix: %s does not hash rows of field elements: the schedule's first hash makes the leaves (rescue does)", s[0].Hash.Name())
		}
		if ms, err = matricesOf(raws, shapes, ins, func(rows, cols int, data []uint64) merkle.Matrix[uint64] {
			return merkle.Matrix[uint64]{Rows: rows, Cols: cols, Data: data}
		}); err != nil {
			return nil, err
		}
		if blowup != 0 {
			return commitExtended(grp, rowHash, raws, shapes, ins, blowup, opts)
		}
		if len(s) == 1 {
			return commitMatrices(ms, func(m merkle.Matrix[uint64]) (*merkle.Tree, error) {
				return merkle.CommitMatrix(grp, m, rowHash, opts)
			},
				func(ms []merkle.Matrix[uint64]) (*merkle.Tree, error) {
					return merkle.CommitMatrices(grp, ms, rowHash, opts)
				})
		}
	}
	c, err := merkle.NewCommitter(firstDevice(grp), s, opts)
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	defer c.Release()
	if isMatrix {
		return commitMatrices(ms, func(m merkle.Matrix[uint64]) (*merkle.Tree, error) {
			return merkle.CommitMatrix(nil, m, rowHash, merkle.Options{Committer: c})
		},
			func(ms []merkle.Matrix[uint64]) (*merkle.Tree, error) {
				return merkle.CommitMatrices(nil, ms, rowHash, merkle.Options{Committer: c})
			})
	}
	hash, ok := s[0].Hash.(merkle.RecordHash)
	if !ok {
		return nil, fmt.Errorf("commit: --records: %s does not hash records: the schedule's first hash makes the leaves (blake3 does)", s[0].Hash.Name())
	}
	if len(raw)%size != 0 {
		return nil, fmt.Errorf("commit: %s has %d bytes, not a whole number of %d-byte records", in, len(raw), size)
	}
	tree, err := merkle.CommitRecords(nil, raw, size, hash, merkle.Options{Committer: c})
	if err != nil {
		return nil, fmt.Errorf("commit: --records %d: %w", size, err)
	}
	return tree, nil
}

// commitWork estimates the time one GPU takes to commit to matrices of
// the given shapes with the named hash, for the one-shot decision
// (cli.Globals.OpenSoon), as cli.OneDeviceWork does for a file: their upload, and
// their permutations at the hash's measured rate, each row absorbing 8
// elements a permutation (the rate of every row hash here) and merged
// once, into the tree or injected into a level. Zero for a hash of no
// measured rate.
func commitWork(hashName string, shapes []shape) time.Duration {
	h, err := registry.Lookup(hashName)
	if err != nil || h.PermuteNanos == 0 {
		return 0
	}
	var bytes, perms float64
	for _, s := range shapes {
		bytes += float64(s.bytes)
		perms += float64(s.rows) * float64((s.cols+7)/8+1)
	}
	return time.Duration(bytes/cli.UploadRate*1e9 + perms*h.PermuteNanos)
}

// parseField31 reads --field: nil for goldilocks (the matrix is of
// uint64 elements, hashed as --hash says), else the registry's hash of
// the 31-bit field's matrices, which --hash, where given, must name
// (poseidon2, or the hash's own name, poseidon2-babybear). Without
// --field, --hash naming a 31-bit field's hash chooses that field.
func parseField31(name, hashName string, hashGiven, records bool) (merkle.RowHash[uint32], error) {
	if name == "goldilocks" && hashGiven {
		if h, err := registry.Lookup(hashName); err == nil && h.ElementBits() == 32 {
			name = h.Field
		}
	}
	if name == "goldilocks" {
		return nil, nil
	}
	var h merkle.RowHash[uint32]
	hs := registry.Of(name)
	if len(hs) > 0 && hs[0].ElementBits() == 32 {
		h, _ = hs[0].Merkle.(merkle.RowHash[uint32])
	}
	if h == nil {
		return nil, fmt.Errorf("commit: --field %q: accepted are goldilocks (the default), %s", name, strings.Join(registry.Fields31, " and "))
	}
	if records {
		return nil, fmt.Errorf("commit: --field %s: --field applies to --matrix; records are bytes", name)
	}
	if hashGiven && hashName != hs[0].Command && hashName != hs[0].Name {
		return nil, fmt.Errorf("commit: --field %s --hash %s: the 31-bit fields are committed with poseidon2 (Plonky3's hashes for them, %s), one hash, no schedule", name, hashName, hs[0].Name)
	}
	return h, nil
}

// commit31 decodes the --in files as matrices of a 31-bit field (canonical
// little-endian uint32s) and commits to them with hash on grp.
func commit31(grp *sched.Group, hash merkle.RowHash[uint32], raws [][]byte, shapes []shape, ins []string, opts merkle.Options) (*merkle.Tree, error) {
	ms, err := matricesOf(raws, shapes, ins, func(rows, cols int, data []uint32) merkle.Matrix[uint32] {
		return merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: data}
	})
	if err != nil {
		return nil, err
	}
	return commitMatrices(ms, func(m merkle.Matrix[uint32]) (*merkle.Tree, error) { return merkle.CommitMatrix(grp, m, hash, opts) },
		func(ms []merkle.Matrix[uint32]) (*merkle.Tree, error) {
			return merkle.CommitMatrices(grp, ms, hash, opts)
		})
}

// matricesOf views each --in file as the matrix of its shape, of
// little-endian elements E (not a copy), made by mk; a file of another
// size is an error naming it.
func matricesOf[E ~uint32 | ~uint64, M any](raws [][]byte, shapes []shape, ins []string, mk func(rows, cols int, data []E) M) ([]M, error) {
	ms := make([]M, len(raws))
	for k, raw := range raws {
		rows, cols := shapes[k].rows, shapes[k].cols
		if want := shapes[k].bytes; len(raw) != want {
			return nil, fmt.Errorf("commit: %s has %d bytes: a %dx%d matrix of little-endian uint%d is %d bytes", ins[k], len(raw), rows, cols, 8*unsafe.Sizeof(E(0)), want)
		}
		ms[k] = mk(rows, cols, cli.AsElements[E](raw))
	}
	return ms, nil
}

// commitMatrices commits to one matrix with one, to several (of
// different heights, in one tree) with many.
func commitMatrices[M any](ms []M, one func(M) (*merkle.Tree, error), many func([]M) (*merkle.Tree, error)) (*merkle.Tree, error) {
	var tree *merkle.Tree
	var err error
	if len(ms) > 1 {
		tree, err = many(ms)
	} else {
		tree, err = one(ms[0])
	}
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return tree, nil
}

// The hashes the commit command's leaves come from.
var (
	_ merkle.RowHash[uint64] = rescue.MerkleMerge{}
	_ merkle.RecordHash      = blake3.MerkleMerge{}
	_ merkle.RowHash[uint32] = poseidon2.BabyBearMerkle
)
