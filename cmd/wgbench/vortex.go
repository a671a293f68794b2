package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wgcompute/wgcompute/algos/vortex"
)

// parseSIS reads --sis LOGDEG,LOGBOUND ("9,16").
func parseSIS(s string) (vortex.SIS, error) {
	d, b, ok := strings.Cut(s, ",")
	deg, errD := strconv.Atoi(strings.TrimSpace(d))
	bound, errB := strconv.Atoi(strings.TrimSpace(b))
	if !ok || errD != nil || errB != nil {
		return vortex.SIS{}, fmt.Errorf("commit: --sis %q: want LOGDEG,LOGBOUND, as 9,16 (Vortex's: degree 2^9, 16-bit limbs)", s)
	}
	return vortex.SIS{LogTwoDegree: deg, LogTwoBound: bound}, nil
}

// commitVortex is commit --scheme vortex: the --in file's ROWS x COLS
// canonical KoalaBear elements committed with gnark-crypto's Vortex (rate
// and SIS instance as given) on the first device, the root printed as 8
// canonical elements, the hex of their little-endian uint32s.
func commitVortex(cmd *cobra.Command, g *globals, scheme string, matrices, ins []string, rate int, sisArg string) error {
	if scheme != "vortex" {
		return fmt.Errorf("commit: --scheme %q: accepted is vortex (gnark-crypto's Vortex over KoalaBear); leave it out for a Merkle tree", scheme)
	}
	for _, f := range []string{"records", "hash", "field", "out", "prove", "approach", "blowup"} {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("commit: --scheme vortex takes --matrix, --in, --rate and --sis, not --%s", f)
		}
	}
	if len(matrices) != 1 || len(ins) != 1 {
		return errors.New("commit: --scheme vortex takes one --matrix ROWSxCOLS and one --in FILE")
	}
	s, err := parseSIS(sisArg)
	if err != nil {
		return err
	}
	sh, err := parseShape(matrices[0], 4)
	if err != nil {
		return err
	}
	p, err := vortex.NewParams(sh.cols, sh.rows, rate, s, 1)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	devices := g.openSoon(0)
	defer devices.close()
	raw, err := readInput(ins[0], g.hostMemory()/4, "a commitment's input can take here (its codewords take host memory too)")
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if len(raw) != sh.bytes {
		return fmt.Errorf("commit: %s has %d bytes: a %dx%d matrix of little-endian uint32 is %d bytes", ins[0], len(raw), sh.rows, sh.cols, sh.bytes)
	}
	m, err := vortex.FromCanonical(asElements[uint32](raw), sh.rows, sh.cols)
	if err != nil {
		return fmt.Errorf("commit: %s: %w", ins[0], err)
	}
	grp, err := devices.wait()
	if err != nil {
		return err
	}
	spin := newSpinner(cmd, g, "commit: Vortex")
	st, err := vortex.Commit(firstDevice(grp), p, m, vortex.Options{})
	spin.done()
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer st.Release()
	if err := interrupted(cmd.Context()); err != nil {
		return err
	}
	var root [32]byte
	for i, x := range vortex.CanonicalRoot(st.Root()) {
		binary.LittleEndian.PutUint32(root[4*i:], x)
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(root[:]))
	return err
}
