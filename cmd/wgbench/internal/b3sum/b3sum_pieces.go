package b3sum

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// subtreeUsage checks the flags and arguments that go with --subtree,
// and returns what is wrong with them, if anything.
func subtreeUsage(set func(string) bool, args []string) string {
	for _, f := range []string{"check", "raw", "length", "no-names"} {
		if set(f) {
			return "--" + f + " does not apply to --subtree, which prints piece records"
		}
	}
	switch {
	case len(args) != 1:
		return fmt.Sprintf("--subtree hashes a range of one FILE, got %d", len(args))
	case args[0] == "-":
		return "--subtree reads its FILE at the range's offset: name a file, not standard input"
	}
	return ""
}

// parseRange parses --subtree's RANGE for a total-byte file: OFFSET:LEN
// or I/K.
func parseRange(s string, total uint64) (off, n uint64, err error) {
	num := func(v string) (uint64, bool) {
		x, err := strconv.ParseUint(v, 10, 64)
		return x, err == nil
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		if off, ok1 := num(a); ok1 {
			if n, ok2 := num(b); ok2 {
				return off, n, nil
			}
		}
	} else if a, b, ok := strings.Cut(s, "/"); ok {
		if i, ok1 := num(a); ok1 {
			if k, ok2 := num(b); ok2 {
				return blake3.Part(total, i, k)
			}
		}
	}
	return 0, 0, fmt.Errorf("--subtree %q: a range is OFFSET:LEN (decimal bytes) or I/K (part I of K, I from 0)", s)
}

// subtree prints the piece records of the range spec of the file name,
// all of them once all are hashed, or nothing and the error.
func (r *b3run) subtree(name, spec string) error {
	fail := func(err error) error {
		fmt.Fprintf(r.errOut, "Error: %s: %s\n", lossyUTF8(name), rustError(err))
		return cli.ExitError{Code: 1}
	}
	f, err := os.Open(name)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	// Only these have a size to split: a directory's "end" is a hash
	// cookie (2^63-1 on ext4), taken as a size it asked the hasher for
	// petabytes of chaining values, and a character device's is 0.
	if m := fi.Mode(); !m.IsRegular() && (m&os.ModeDevice == 0 || m&os.ModeCharDevice != 0) {
		return fail(fmt.Errorf("%s: --subtree hashes a regular file or a block device, of known size", fileKind(m)))
	}
	// The size where the file ends: a regular file's or a block device's.
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fail(fmt.Errorf("no size to find (%s): --subtree reads a file of known size at any offset, not a pipe or a stream", rustError(err)))
	}
	off, n, err := parseRange(spec, uint64(size))
	if err != nil {
		return fail(err)
	}
	ps, err := r.auto.SumPieces(f, uint64(size), off, n)
	if err != nil {
		return fail(err)
	}
	if len(ps) == 0 {
		return nil
	}
	b, err := fileSample(f, uint64(size), ps[0].Mode, r.opts)
	if err != nil {
		return fail(err)
	}
	for _, p := range ps {
		if b, err = p.AppendText(b); err != nil {
			return fail(err)
		}
		b = append(b, '\n')
	}
	_, err = r.out.w.Write(b)
	if err == nil {
		err = r.out.w.Flush()
	}
	return err
}

// sampleChunks is how many chunks of a file its b3file line hashes.
const sampleChunks = 64

// fileSample returns the b3file line of the file r of total bytes, whose
// pieces were hashed in mode with opts's key or context: what tells
// files of one size apart as far as reading a few chunks of them can.
func fileSample(r io.ReaderAt, total uint64, mode blake3.Mode, opts blake3.Options) ([]byte, error) {
	var h *blake3.Hasher
	switch {
	case opts.Key != nil:
		var err error
		if h, err = blake3.NewKeyed(opts.Key); err != nil {
			return nil, err
		}
	case opts.DeriveKey:
		h = blake3.NewDeriveKey(opts.Context)
	default:
		h = blake3.New()
	}
	const chunk = blake3.ChunkSize
	chunks := (total + chunk - 1) / chunk
	buf := make([]byte, chunk)
	for i := range min(chunks, sampleChunks) {
		c := i
		if chunks > sampleChunks {
			c = i * (chunks - 1) / (sampleChunks - 1)
		}
		n := min(chunk, total-c*chunk)
		if _, err := r.ReadAt(buf[:n], int64(c*chunk)); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("shorter than its size of %d bytes while read", total)
			}
			return nil, err
		}
		h.Write(buf[:n])
	}
	return fmt.Appendf(nil, "b3file %s %d %x\n", mode, total, h.Sum(nil)), nil
}

// fileLine is a b3file line of b3sum --subtree, as combine reads it.
type fileLine struct {
	mode  string
	total uint64
	line  string // the line itself, trimmed, for comparisons
	at    string // where it was read: "file:line"
}

// parseFileLine parses line, which starts with "b3file ".
func parseFileLine(line, at string) (fileLine, error) {
	f := strings.Fields(line)
	if len(f) != 4 {
		return fileLine{}, fmt.Errorf("%s: a b3file line is \"b3file MODE TOTAL SAMPLE\": it has %d fields", at, len(f))
	}
	total, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil {
		return fileLine{}, fmt.Errorf("%s: b3file line: total %q is not a decimal size", at, f[2])
	}
	if len(f[3]) != 64 || strings.Trim(f[3], "0123456789abcdef") != "" {
		return fileLine{}, fmt.Errorf("%s: b3file line: sample %q is not 64 lowercase hex digits", at, f[3])
	}
	return fileLine{mode: f[1], total: total, line: strings.Join(f, " "), at: at}, nil
}

// checkFileLines refuses b3file lines that differ from each other or
// from the pieces (all of mode and of total bytes, as Combine checked).
func checkFileLines(lines []fileLine, mode blake3.Mode, total uint64) error {
	for _, l := range lines {
		switch {
		case l.line != lines[0].line:
			return fmt.Errorf("the records are of different files: the b3file lines at %s and %s differ (the files' sampled chunks differ)", lines[0].at, l.at)
		case l.mode != mode.String() || l.total != total:
			return fmt.Errorf("%s: the b3file line is of a %s-byte file hashed in %s mode, the pieces of a %d-byte file in %s mode", l.at, strconv.FormatUint(l.total, 10), l.mode, total, mode)
		}
	}
	return nil
}

// fileKind names what a file of mode m is, for errors about files that
// are not regular.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "is a directory"
	case m&os.ModeCharDevice != 0:
		return "is a character device"
	case m&os.ModeNamedPipe != 0:
		return "is a named pipe"
	case m&os.ModeSocket != 0:
		return "is a socket"
	}
	return "is not a regular file"
}

// b3combine is one 'b3sum combine' command.
type b3combine struct {
	keyed, raw, noNames     bool
	deriveKey, length, name string
}

func newB3combineCmd() *cobra.Command {
	var fl b3combine
	cmd := &cobra.Command{
		Use:   "combine [flags] [RECORDS]...",
		Short: "Combine the piece records of one file (b3sum --subtree) into its BLAKE3 hash",
		Long: `combine reads the piece records that 'wgbench b3sum --subtree' printed for
ranges of one file, from the RECORDS files ('-' or none: standard input),
checks them, and prints the file's hash as b3sum does: "<hex>" alone, or
"<hex>  NAME" with --name NAME, so that --name FILE prints what
'wgbench b3sum FILE' prints (and b3sum --check accepts). The records may
come in any order and from any number of files; empty lines are skipped,
and a record repeated (a range hashed twice) counts once.

The records must be of one file and one mode and cover it without gaps or
overlaps, or combine prints nothing and exits 1 saying why. What tells
files apart is their size and their b3file lines (see b3sum --help): the
hash of 64 chunks spread over the file, which must be the same in every
record file. Records of files of one size alike in those chunks cannot be
told apart, and combine into a hash of neither; records without a b3file
line (written by hand, or by an older wgbench) are checked by size alone.
The mode must be the records' own: --keyed (the 32-byte key from
standard input, the records then from named files) or --derive-key
CONTEXT with the key or context the ranges were hashed with, which the
records do not hold: a wrong key or context gives a wrong hash, not an
error.

Exit status: 0 when the hash was printed; 1 otherwise.`,
		RunE: func(cmd *cobra.Command, args []string) error { return fl.run(cmd, args) },
	}
	cmd.Annotations = map[string]string{cli.ExitOnError: "1"}
	// Not b3sum's clap errors: combine is wgbench's own.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	f := cmd.Flags()
	f.BoolVar(&fl.keyed, "keyed", false, "the records are of the keyed mode; the 32-byte key is read from standard input")
	f.StringVar(&fl.deriveKey, "derive-key", "", "the records are of the key derivation mode with this `CONTEXT` string")
	f.StringVarP(&fl.length, "length", "l", "32", "the number of output bytes, before hex encoding (any length streams)")
	f.BoolVar(&fl.raw, "raw", false, "writes raw output bytes instead of hex")
	f.StringVar(&fl.name, "name", "", "prints this `NAME` after the hash, as b3sum prints a file's")
	// 'b3sum --no-names combine' is how a b3sum user writes it: the
	// hash alone is what combine prints without --name.
	f.BoolVar(&fl.noNames, "no-names", false, "prints the hash alone, as without --name (b3sum's flag)")
	return cmd
}

func (fl *b3combine) run(cmd *cobra.Command, args []string) error {
	set := cmd.Flags().Changed
	if fl.keyed && set("derive-key") {
		return errors.New("--keyed and --derive-key exclude each other: the records are of one mode")
	}
	if fl.raw && set("name") {
		return errors.New("--raw writes the output bytes alone: it takes no --name")
	}
	if fl.noNames && set("name") {
		return errors.New("--no-names and --name exclude each other: --no-names prints the hash alone, --name NAME after it")
	}
	length, msg := parseRustUint(fl.length)
	if msg != "" {
		return fmt.Errorf("invalid --length %q: %s", fl.length, msg)
	}
	if len(args) == 0 {
		args = []string{"-"}
	}
	var opts blake3.Options
	stdin := cmd.InOrStdin()
	if fl.keyed {
		for _, a := range args {
			if a == "-" {
				return errors.New("--keyed reads the key from standard input: name the records files")
			}
		}
		key, msg := readKey(stdin)
		if msg != "" {
			return errors.New(msg)
		}
		opts.Key = key
	}
	if set("derive-key") {
		opts.DeriveKey, opts.Context = true, fl.deriveKey
	}
	var pieces []blake3.Piece
	var files []fileLine
	// A whole file's records take about 230 bytes per piece, 64 pieces at
	// most per range: the bound is for a mistaken file.
	err := cli.EachRecordLine(stdin, args, 64<<20, func(line, at string) error {
		if strings.HasPrefix(line, "b3file ") {
			l, err := parseFileLine(line, at)
			files = append(files, l)
			return err
		}
		var p blake3.Piece
		if err := p.UnmarshalText([]byte(line)); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		pieces = append(pieces, p)
		return nil
	})
	if err != nil {
		return err
	}
	sum, err := blake3.CombineOutput(pieces, opts)
	if err != nil {
		return err
	}
	// Combine checked the pieces against each other; the b3file lines
	// tell apart files of one size.
	if err := checkFileLines(files, pieces[0].Mode, pieces[0].Total); err != nil {
		return err
	}
	out := b3out{w: bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)}
	if fl.raw {
		err = out.output(sum, length, false)
	} else {
		err = out.line(sum, length, fl.name, !set("name"))
	}
	if err == nil {
		err = out.w.Flush()
	}
	return err
}
