package selftestcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/internal/selftest"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// New returns the selftest command.
func New(g *cli.Globals) *cobra.Command {
	return selftestCmd(g, selftest.Families())
}

// selftestCmd is the selftest command checking fams (the tests swap in a
// wrong kernel).
func selftestCmd(g *cli.Globals, fams []selftest.Family) *cobra.Command {
	var all bool
	var jsonPath, limits string
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check that this GPU computes what the CPU reference computes",
		Long: `selftest runs every kernel family, every variant, on fixed inputs and compares
the results with digests of the CPU reference built into wgbench: BLAKE3 (every
mode, lengths across chunk and subtree boundaries, the Merkle merge), Goldilocks
field operations, each field hash (Rescue Prime, RPO and Poseidon2 over
Goldilocks, Poseidon2 over BabyBear and KoalaBear, gnark-crypto's Poseidon2:
permutation, hashing, merging), the NTT over BabyBear, KoalaBear and
Goldilocks (forward, inverse, coset) and Reed-Solomon encoding, gnark-crypto's
Vortex commitment over KoalaBear (roots, SIS digests, tree), Merkle trees by
every approach, all bit for bit; Linea's Vortex (commitments with SIS and
without at rates 2 and 16, constant rows among them: roots, column hashes,
trees; a round's opening: linear combination, columns, Merkle proofs, and
VerifyLinea's verdict), bit for bit against what Linea's own code computed,
read from its vectors built into wgbench; and the eigenvalue solver within
1e-5 of the float64 reference, with the leading bits that agree.

It prints one PASS or FAIL line per family with the adapter, its driver and
its limits, and exits with status 1 if any family fails. A family fails in one
of two ways, told apart in the lines, the message at the end and the --json
report's "status": its results differ from the reference ("mismatch"), or its
kernels cannot be compiled or run on this adapter ("error", with the first
error): nothing was computed to compare. Run it first on a new GPU or driver;
--json writes a report to attach to a bug.

The adapter is the one --backend and --adapter choose; --all checks every
adapter (of --backend, if given). --limits webgpu opens each device with the
limits WebGPU guarantees on every adapter (as WGCOMPUTE_LIMITS=webgpu does),
to check the smallest conformant GPU.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := g.GPU
			if limits != "" {
				lim, ok := wgpu.LimitProfiles[strings.ToLower(limits)]
				if !ok {
					return fmt.Errorf("selftest: --limits %q: accepted is webgpu (or leave it out for the adapter's own limits)", limits)
				}
				opts.Limits = lim
			}
			if jsonPath != "" {
				if err := fileout.Check(jsonPath); err != nil {
					return err
				}
			}
			golden, err := selftest.LoadGolden()
			if err != nil {
				return err
			}
			if err := g.GPUSpaceError(opts); err != nil {
				return err
			}
			// The adapters to check, each with what the listing says of
			// it (nothing for the one the flags choose).
			targets := []wgpu.Options{opts}
			infos := []wgpu.AdapterInfo{{}}
			if all {
				listed, err := wgpu.Adapters(opts)
				if err != nil {
					return err
				}
				if len(listed) > 0 { // else the CPU backend
					targets, infos = nil, nil
				}
				for _, in := range listed {
					if in.Unusable != "" {
						fmt.Fprintf(cmd.OutOrStdout(), "adapter %d: %s (%s): not checked: %s\n", in.Index, in.Name, in.Backend, in.Unusable)
						continue
					}
					infos = append(infos, in)
					o := opts
					o.Adapter = strconv.Itoa(in.Index)
					targets = append(targets, o)
				}
			}
			out := cmd.OutOrStdout()
			rep := selftest.NewFile()
			for i, o := range targets {
				r, err := selftestAdapter(out, o, infos[i], fams, golden, all)
				if err != nil {
					return err
				}
				rep.Add(r)
			}
			if jsonPath != "" {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				if err := fileout.WriteFile(jsonPath, append(b, '\n')); err != nil {
					return err
				}
			}
			// Once, at the end: the adapter was a software renderer, or
			// OpenGL for want of Vulkan, and what to install.
			var checked []wgpu.AdapterInfo
			for _, r := range rep.Adapters {
				if r.Error == "" {
					checked = append(checked, r.Adapter)
				}
			}
			if note := selftest.FallbackNote(checked, opts.Backend != "" || opts.Adapter != ""); note != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), note)
			}
			if !rep.Pass {
				selftestVerdict(cmd.ErrOrStderr(), rep.Adapters)
				return cli.ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "check every adapter (of --backend, if given)")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write a JSON report (adapters, limits, every family's result, wgbench's version) to this file")
	cmd.Flags().StringVar(&limits, "limits", "", "open each device with a limits profile: webgpu (default: the adapter's own limits; env WGCOMPUTE_LIMITS)")
	return cmd
}

// selftestVerdict says why the self-test failed: adapters that compute
// results differing from the reference, and apart from them adapters that
// cannot compile or run the kernels (with the first error), which computed
// nothing to compare.
func selftestVerdict(w io.Writer, reps []selftest.Report) {
	const report = "please report it with the --json report attached"
	for _, r := range reps {
		name := r.Adapter.Name
		if r.Adapter.Backend != "" {
			name += " (" + r.Adapter.Backend + ")"
		}
		switch r.Status {
		case selftest.StatusMismatch:
			fmt.Fprintf(w, "wgbench: selftest failed: %s computes results that differ from the reference; %s\n", name, report)
		case selftest.StatusError:
			if fam, err := r.FirstError(); fam != "" {
				fmt.Fprintf(w, "wgbench: selftest failed: %s cannot compile or run kernels on this adapter: %s (family %s); %s\n", name, err, fam, report)
			} else {
				fmt.Fprintf(w, "wgbench: selftest failed: %s could not be opened: %s\n", name, r.Error)
			}
		}
	}
}

// selftestAdapter opens the adapter o chooses (the CPU backend for
// --backend cpu) and checks fams on it, printing a line per family. Under
// --all (keepGoing) an adapter that cannot be opened is a failed report
// on listed, the adapter as listed; otherwise it is the command's error.
func selftestAdapter(out io.Writer, o wgpu.Options, listed wgpu.AdapterInfo, fams []selftest.Family, golden selftest.Golden, keepGoing bool) (selftest.Report, error) {
	ctx, err := cli.OpenAdapter(o)
	if err != nil {
		if !keepGoing {
			return selftest.Report{}, err
		}
		fmt.Fprintf(out, "FAIL  open %s: %s: %v\n", listed.Backend, listed.Name, err)
		return selftest.Report{Adapter: listed, Status: selftest.StatusError, Error: err.Error()}, nil
	}
	defer ctx.Close()
	info := ctx.Info()
	return selftest.Run(ctx, fams, golden, func(r selftest.Result) {
		fmt.Fprintln(out, r.Line(info))
		for _, f := range r.Failures {
			if r.Status != selftest.StatusError || f != r.Error { // else the line has it
				fmt.Fprintln(out, "      "+f)
			}
		}
	}), nil
}
