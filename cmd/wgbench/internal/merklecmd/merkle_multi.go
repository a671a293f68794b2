package merklecmd

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Proofs of several leaves: 'merkle prove' with several indices prints a
// multi-proof (merkle.MultiProof) or, with --format pruned, pruned paths
// (merkle.PrunedProof); 'merkle verify' reads every form.

// proveFlags are merkle prove's flags, less --range.
type proveFlags struct {
	hashName, in string
	approach     int
	indices      []int
	format       string // "", single, multi or pruned
	capHeight    int
}

// merkleProve builds the tree of the leaves file (with --cap only its top
// levels, on one device) and prints the proof of the leaves at indices in
// the form asked for.
func merkleProve(cmd *cobra.Command, g *cli.Globals, f proveFlags) error {
	format := f.format
	switch {
	case len(f.indices) == 0:
		return errors.New("merkle prove: --index I is required: a leaf index, 0..N-1 (several, as 3,17,99, for a multi-proof)")
	case format == "" && len(f.indices) == 1:
		format = "single"
	case format == "":
		format = "multi"
	case format == "single" && len(f.indices) > 1:
		return fmt.Errorf("merkle prove: --format single proves one leaf, and %d indices are given: use --format multi or pruned", len(f.indices))
	case format != "single" && format != "multi" && format != "pruned":
		return fmt.Errorf("merkle prove: --format %q: accepted are single, multi and pruned", format)
	}
	if f.capHeight < 0 {
		return fmt.Errorf("merkle prove: --cap %d: accepted are 0 (keep every node) or a height above 0", f.capHeight)
	}
	if isSchedule(f.hashName) {
		// A mixed tree proves one leaf, in the single form that
		// merkle verify --hash SCHEDULE checks.
		if len(f.indices) != 1 || format != "single" || f.capHeight != 0 {
			return fmt.Errorf("merkle prove: --hash %s (a schedule) proves one leaf, in the single form: give one --index, and no --format or --cap", f.hashName)
		}
		tree, _, err := merkleBuild(cmd, g, f.hashName, f.in, f.approach, false)
		if err != nil {
			return err
		}
		p, err := tree.Proof(f.indices[0])
		if err != nil {
			return err
		}
		return printProof(cmd.OutOrStdout(), p)
	}
	return withLeaves(g, f.hashName, f.in, func(hash merkle.Hash, leaves [][32]byte, grp *sched.Group) error {
		opts, err := approachOptions(f.approach)
		if err != nil {
			return err
		}
		var tree *merkle.Tree
		if f.capHeight > 0 {
			// A capped tree rebuilds its subtrees on the device it was
			// built on, open until this function returns.
			opts.CapHeight = f.capHeight
			tree, err = merkle.Build(grp.Contexts()[0], leaves, hash, opts)
		} else {
			tree, err = merkle.Build(grp, leaves, hash, opts)
		}
		if err != nil {
			return err
		}
		var proof any
		switch format {
		case "single":
			proof, err = tree.Proof(f.indices[0])
		case "multi":
			proof, err = tree.MultiProof(f.indices)
		default:
			proof, err = tree.PrunedProof(f.indices)
		}
		if err != nil {
			return err
		}
		return printProof(cmd.OutOrStdout(), proof)
	})
}

// setProof is a multi-proof or pruned paths, as read.
type setProof struct {
	multi  *merkle.MultiProof
	pruned *merkle.PrunedProof
}

// proofForm reads b, the proof file path, as a multi-proof or pruned paths
// by its "format", or returns nil for a single proof (no format, or
// "single").
func proofForm(path string, b []byte) (*setProof, error) {
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s is not a proof as merkle prove prints it: %w", path, err)
	}
	var s setProof
	var err error
	switch probe.Format {
	case "", "single":
		return nil, nil
	case "multi":
		s.multi = new(merkle.MultiProof)
		err = json.Unmarshal(b, s.multi)
	case "pruned":
		s.pruned = new(merkle.PrunedProof)
		err = json.Unmarshal(b, s.pruned)
	default:
		return nil, fmt.Errorf(`%s: "format": %q: accepted are single (or none), multi and pruned, as merkle prove prints them`, path, probe.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a proof as merkle prove prints it: %w", path, err)
	}
	return &s, nil
}

// verifySet checks a multi-proof or pruned paths against the trusted root
// and size where given, else against the proof's own with a warning.
func verifySet(cmd *cobra.Command, hash merkle.Hash, path string, s *setProof, rootHex string, leaves int) error {
	var n, count int
	var root [32]byte
	var indices []int
	if s.multi != nil {
		n, root, indices, count = s.multi.Leaves, s.multi.Root, s.multi.Indices, len(s.multi.Nodes)
	} else {
		n, root, indices = s.pruned.Leaves, s.pruned.Root, s.pruned.Indices
		for _, p := range s.pruned.Paths {
			count += len(p)
		}
	}
	tr, err := trustedTree(cmd, rootHex, leaves, root, n)
	if err != nil {
		return err
	}
	var ok bool
	if s.multi != nil {
		ok = merkle.Verify(hash, tr.root, tr.n, *s.multi)
	} else {
		ok = merkle.Verify(hash, tr.root, tr.n, *s.pruned)
	}
	if !ok {
		why := fmt.Sprintf("its %d leaves and %d nodes do not give root %x with the %s merge", len(indices), count, tr.root[:], hash.Name())
		switch {
		case tr.statedN != tr.n:
			why = fmt.Sprintf("it is a proof for a tree of %d leaves, not of the %d given by --leaves", tr.statedN, tr.n)
		case tr.stated != tr.root:
			why = fmt.Sprintf("it states root %x, not the %x given by --root", tr.stated[:], tr.root[:])
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: %s does not verify: %s\n", path, why)
		return cli.ExitError{Code: 1}
	}
	tr.warn(cmd)
	return nil
}

// trusted is the root and size a proof is verified against, and which of
// them were taken from the proof itself.
type trusted struct {
	root    [32]byte
	n       int
	assumed []string
	stated  [32]byte // the proof's root, for the warning
	statedN int
}

// trustedTree returns the root and size --root and --leaves give, or the
// proof's own (root, n) for those not given.
func trustedTree(cmd *cobra.Command, rootHex string, leaves int, root [32]byte, n int) (trusted, error) {
	tr := trusted{root: root, n: n, stated: root, statedN: n}
	if rootHex != "" {
		var err error
		if tr.root, err = parseDigest(rootHex); err != nil {
			return tr, fmt.Errorf("merkle verify: --root: %w", err)
		}
	} else {
		tr.assumed = append(tr.assumed, "root")
	}
	if cmd.Flags().Changed("leaves") {
		if leaves < 1 {
			return tr, fmt.Errorf("merkle verify: --leaves: merkle: %d leaves: a tree needs at least 1 leaf (any count: 1, 2, 3, ...)", leaves)
		}
		tr.n = leaves
	} else {
		tr.assumed = append(tr.assumed, "size")
	}
	return tr, nil
}

// warn says on standard error which of the root and size were taken from
// the proof itself.
func (tr trusted) warn(cmd *cobra.Command) {
	if len(tr.assumed) == 0 {
		return
	}
	what := strings.Join(tr.assumed, " and ") + " were"
	if len(tr.assumed) == 1 {
		what = tr.assumed[0] + " was"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "merkle verify: the proof is consistent, but the tree's %s taken from the proof itself (root %x, %d leaves): "+
		"compare them with the ones you trust, or pass --root and --leaves\n", what, tr.stated[:], tr.statedN)
}

// parseDigest decodes 64 hex digits into a digest (--root, a range
// record's root).
func parseDigest(s string) ([32]byte, error) {
	var d [32]byte
	if len(s) != 2*merkle.DigestSize {
		return d, fmt.Errorf("merkle: digest of %d characters: want 64 hex digits (32 bytes)", len(s))
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("merkle: digest %q: want 64 hex digits (32 bytes)", s)
	}
	return d, nil
}
