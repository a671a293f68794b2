package merklecmd

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
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
//
// A one-shot commitment of gigabytes is bound by the host: the file is
// read straight into the one matrix the commitment takes (readWords,
// every core, huge pages), its values turned into Montgomery forms where
// they lie (vortex.FromCanonicalInPlace, one pass on every core), and the
// parameters (the SIS key, gnark-crypto's domains) made while the devices
// open and the file is read.
func commitVortex(cmd *cobra.Command, g *cli.Globals, scheme string, matrices, ins []string, rate int, sisArg string) error {
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
	start, err := startCommit(g, "vortex: parameters", func() (*vortex.Params, error) {
		return vortex.NewParams(sh.cols, sh.rows, rate, s, 1)
	}, func() ([]uint32, func(), error) { return readWords(ins[0], sh, g.HostMemory()/4) })
	defer start.devices.Close()
	if !g.Process {
		// A process that exits next leaves its memory to the exit.
		defer start.free()
	}
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	p, devices, free := start.params, start.devices, start.free
	m, err := vortex.FromCanonicalInPlace(start.input, sh.rows, sh.cols)
	if err != nil {
		return fmt.Errorf("commit: %s: %w", ins[0], err)
	}
	endWait := wgpu.Span("wait for the devices")
	grp, err := devices.Wait()
	endWait(0)
	if err != nil {
		return err
	}
	spin := cli.NewSpinner(cmd, g, "commit: Vortex")
	st, err := vortex.Commit(firstDevice(grp), p, m, vortex.Options{})
	spin.Done()
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	defer closeTraced(g, grp, free, st.Release)
	if err := cli.Interrupted(cmd.Context()); err != nil {
		return err
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), rootHex(st.Root()))
	return err
}

// readUpTo reads r to its end or to n bytes, whichever comes first,
// into a buffer that grows with what was read (doubling, never past n).
func readUpTo(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<20))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = append(make([]byte, 0, min(2*int64(cap(buf)), n)), buf...)
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// closeTraced is what a one-shot commitment defers once it is made:
// release, each in turn (the commitment's device memory: gigabytes, which
// the driver frees allocation by allocation), then, where the process
// exits next, the devices closed and the input freed (free), each a span
// of the trace. Freeing takes as long at the process exit as here, so a
// one-shot command frees here, in the trace, after the root is printed.
func closeTraced(g *cli.Globals, grp *sched.Group, free func(), release ...func()) {
	endFree := wgpu.Span("close: free the commitment's device memory")
	for _, r := range release {
		r()
	}
	endFree(0)
	if g.Process {
		endClose := wgpu.Span("close: the devices")
		grp.Close()
		endClose(0)
		endUnmap := wgpu.Span("close: unmap the input")
		free()
		endUnmap(0)
	}
}

// started is a one-shot commitment's start (startCommit): its parameters,
// its input and the devices being opened.
type started[P, D any] struct {
	params  P
	input   D
	devices *cli.Opening
	// free frees the input's memory; a no-op where the read failed.
	free func()
}

// startCommit starts a one-shot commitment as both schemes do: the
// parameters (a SIS key, domains: a fraction of a second at large shapes)
// made on a goroutine of their own, traced as label, and the devices
// opened on another, while read reads the input on this one, taking every
// core. It returns once the parameters and the input are there, with the
// first error of the two (the parameters' first); the caller defers
// devices.Close, and free unless the process exits next, errors or not.
func startCommit[P, D any](g *cli.Globals, label string, build func() (P, error), read func() (D, func(), error)) (s started[P, D], err error) {
	type made struct {
		p   P
		err error
	}
	ch := make(chan made, 1)
	go func() {
		defer wgpu.Span(label)(0)
		p, err := build()
		ch <- made{p, err}
	}()
	s.devices = g.OpenSoon(0)
	// The read below takes every core: the goroutines above start first.
	runtime.Gosched()
	var readErr error
	s.input, s.free, readErr = read()
	if readErr != nil {
		s.free = func() {}
	}
	m := <-ch
	s.params = m.p
	if m.err != nil {
		return s, m.err
	}
	return s, readErr
}

// readWords reads the --in file of the matrix sh (little-endian uint32)
// into words of their own (AllocWords), at most limit bytes, and returns
// the function that frees them. A regular file of the matrix's size is
// read on every core straight into them; anything else (a stream, a file
// of another size, a big-endian host) is read as every input is, for the
// same errors.
func readWords(path string, sh shape, limit int64) (_ []uint32, free func(), err error) {
	const why = "a commitment's input can take here (its codewords take host memory too)"
	f, fi, err := cli.OpenInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := int64(sh.bytes)
	littleEndian := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	if !fi.Mode().IsRegular() || fi.Size() == 0 {
		// A stream is read up to the shape's bytes and one more, in
		// memory that grows with what arrives, not with what is claimed.
		if size > limit {
			return nil, nil, fmt.Errorf("%s: a %dx%d matrix of little-endian uint32 is %d bytes, more than %s, the most %s", path, sh.rows, sh.cols, size, bytesize.Tenths(limit), why)
		}
		defer wgpu.Span("read input")(size)
		buf, err := readUpTo(f, size+1)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		n := int64(len(buf))
		if n > size {
			return nil, nil, fmt.Errorf("%s has more than %d bytes: a %dx%d matrix of little-endian uint32 is %d bytes", path, size, sh.rows, sh.cols, sh.bytes)
		}
		if n != size {
			return nil, nil, fmt.Errorf("%s has %d bytes: a %dx%d matrix of little-endian uint32 is %d bytes", path, n, sh.rows, sh.cols, sh.bytes)
		}
		return cli.AsElements[uint32](buf), func() {}, nil
	}
	if fi.Size() != size || size < cli.ParallelRead || !littleEndian {
		raw, err := cli.ReadInput(path, limit, why)
		if err != nil {
			return nil, nil, err
		}
		if len(raw) != sh.bytes {
			return nil, nil, fmt.Errorf("%s has %d bytes: a %dx%d matrix of little-endian uint32 is %d bytes", path, len(raw), sh.rows, sh.cols, sh.bytes)
		}
		return cli.AsElements[uint32](raw), func() {}, nil
	}
	if size > limit {
		return nil, nil, fmt.Errorf("%s is larger than %s, the most %s", path, bytesize.Tenths(limit), why)
	}
	defer wgpu.Span("read input")(size)
	words, free, err := cli.AllocWords(sh.bytes / 4)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			free()
		}
	}()
	if err := cli.ReadFileAt(path, f, wgpu.Bytes(words), 0, size); err != nil {
		return nil, nil, err
	}
	// A file that grew while read is refused as one of that size is.
	var more [1]byte
	if k, _ := f.ReadAt(more[:], size); k > 0 {
		return nil, nil, fmt.Errorf("%s has more than %d bytes, its size when opened: a %dx%d matrix of little-endian uint32 is %d bytes", path, size, sh.rows, sh.cols, sh.bytes)
	}
	return words, free, nil
}

// rootHex is a 31-bit root as the vortex and linea commands print it: its 8 canonical
// elements' little-endian uint32s, in hex.
func rootHex(h vortex.Hash) string {
	var root [32]byte
	for i, x := range vortex.CanonicalRoot(h) {
		binary.LittleEndian.PutUint32(root[4*i:], x)
	}
	return hex.EncodeToString(root[:])
}
