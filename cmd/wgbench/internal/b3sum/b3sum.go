package b3sum

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// CatchDelay is how long b3sum runs before it catches Ctrl-C: a
// b3sum of a small file ends sooner, and catching the signals (os/signal's
// receiving thread, the watcher goroutine) cost a noticeable part of a
// b3sum of a small file (bench/results/HISTORY.md, "Start-up on the
// 2-core CI machine"). b3sum writes only standard output, so a Ctrl-C in
// that time ending it at once, as it ends b3sum itself, loses nothing.
const CatchDelay = 20 * time.Millisecond

// b3flags are b3sum's flags, as b3sum 1.2.0 names them, --device and
// --subtree.
type b3flags struct {
	keyed, noNames, raw, check, quiet, noMmap, version bool
	deriveKey, length, numThreads, device              string
	subtree                                            string
	// repeated is the flag given twice, which b3sum's parser refuses.
	repeated string
}

// New returns the b3sum command.
func New(g *cli.Globals) *cobra.Command {
	var fl b3flags
	cmd := &cobra.Command{
		Use:   "b3sum [flags] [FILE]...",
		Short: "Print or check BLAKE3 checksums, as b3sum 1.2.0 does, on the CPU or the GPU",
		Long: `b3sum prints the BLAKE3 hash of each FILE as "<hex>  <name>", or checks the
sums that files list (--check), with b3sum 1.2.0's flags, output bytes and
exit status; '-' or no FILE reads standard input. A name holding a backslash
or a newline is escaped, and its line starts with a backslash.

--device auto (the default) hashes on all CPU cores, and adds the GPU for an
input of 32 GiB or more when the machine has a GPU that is not a software
renderer; --device cpu never opens a GPU; --device gpu hashes everything on
the adapter --backend and --adapter choose, or, with --devices, each file on
all the GPUs it names at once. WGCOMPUTE_BACKEND=cpu (or
--backend cpu) keeps every device on the CPU. Files are read with parallel
reads, which measured faster than mapping them into memory (64 MiB on a
2-core machine, 2026-11-23: 16.8 ms read, 19.8 ms mapped): --no-mmap is
accepted and changes nothing. --trace (or WGCOMPUTE_TRACE=1)
prints where the time went on standard error.

--subtree RANGE hashes one range of one FILE into piece records, which
'wgbench b3sum combine' merges into the FILE's hash: the range may be
hashed on another machine than the rest of the file. RANGE is OFFSET:LEN,
in bytes (OFFSET a multiple of 1024, and OFFSET+LEN one too or the file's
size), or I/K: part I of K parts of nearly equal size, I from 0 to K-1.
Each line printed is one complete subtree of the file's BLAKE3 tree:

  b3piece MODE TOTAL OFFSET LENGTH CV [LAST]

MODE is hash, keyed or derive-key; TOTAL is the file's size; OFFSET and
LENGTH are the subtree's bytes; CV is its chaining value in hex. A file of
1024 bytes or less has one piece, all of it, which holds its root node
instead: CV and LAST, the file's last block in hex (- when empty), so that
its record shows up to 64 bytes of the file. A range that holds no subtree
prints nothing. --keyed, --derive-key, --device and
--num-threads apply; the key and the context are not recorded. A file
named combine is hashed as ./combine or after --.

The piece records follow one line that tells files apart, as far as a
range of one can:

  b3file MODE TOTAL SAMPLE

SAMPLE is the hash, in the mode and with the key or context of the pieces,
of 64 chunks of 1024 bytes spread evenly from the file's first chunk to its
last (all of a file of 64 KiB or less). 'b3sum combine' refuses records
whose b3file lines differ: pieces of files of one size that differ in a
sampled chunk. Files of one size alike in those 64 chunks cannot be told
apart by their records, and combine into a hash of neither.

-V (--version) prints "b3sum 1.2.0", the version whose output, errors and
exit status these are, as b3sum does; usage errors are b3sum's too, in its
words (error: ..., USAGE: ...).

Exit status: 0 when every file was hashed (and, with --check, matched); 1
otherwise, and for usage errors.`,
		RunE: func(cmd *cobra.Command, args []string) error { return fl.run(g, cmd, args) },
	}
	cmd.AddCommand(newB3combineCmd())
	cmd.Annotations = map[string]string{cli.ExitOnError: "1"}
	cmd.SetFlagErrorFunc(fl.flagError)
	f := cmd.Flags()
	f.BoolVarP(&fl.check, "check", "c", false, "reads BLAKE3 sums from the FILEs and checks them")
	f.BoolVar(&fl.keyed, "keyed", false, "uses the keyed mode; the 32-byte key is read from standard input")
	f.BoolVar(&fl.noMmap, "no-mmap", false, "accepted for b3sum's sake: files are always read, never mapped")
	f.BoolVar(&fl.noNames, "no-names", false, "omits file names in the output")
	f.BoolVar(&fl.quiet, "quiet", false, "skips printing OK for each verified file (with --check)")
	f.BoolVar(&fl.raw, "raw", false, "writes raw output bytes instead of hex; one input only")
	f.StringVar(&fl.deriveKey, "derive-key", "", "uses the key derivation mode with this `CONTEXT` string")
	f.StringVarP(&fl.length, "length", "l", "32", "the number of output bytes, before hex encoding (any length streams)")
	f.StringVar(&fl.numThreads, "num-threads", "0", "the most threads that hash on the CPU; 0: all cores, or RAYON_NUM_THREADS")
	f.StringVar(&fl.device, "device", "auto", "where to hash: auto, cpu or gpu")
	f.StringVar(&fl.subtree, "subtree", "", "prints the piece records of this `RANGE` of one FILE (OFFSET:LEN or I/K) for 'b3sum combine'")
	f.BoolVarP(&fl.version, "version", "V", false, `prints "`+b3sumVersion+`", the b3sum whose behaviour this is`)
	clapFlags(f, &fl.repeated)
	return cmd
}

// b3run is one b3sum command: where its output goes and how it hashes.
type b3run struct {
	fl   *b3flags
	auto *blake3.Auto
	// opts are auto's mode: the key or context --subtree's sample is
	// hashed with.
	opts   blake3.Options
	stdin  io.Reader
	out    b3out
	errOut io.Writer
	length uint64
	// lengthErr is b3sum's message for a bad --length, which it reports for
	// each file, after hashing it.
	lengthErr string
	failed    bool
}

// run checks the flags in b3sum's order (its argument parser's rules,
// --raw, the key, --num-threads) and hashes or checks each file. The
// errors b3sum reports before any file exit 1 with its message.
func (fl *b3flags) run(g *cli.Globals, cmd *cobra.Command, args []string) error {
	errOut := cmd.ErrOrStderr()
	fail := func(msg string) error {
		fmt.Fprintln(errOut, msg)
		return cli.ExitError{Code: 1}
	}
	if fl.version {
		return fl.printVersion(cmd.OutOrStdout())
	}
	set := cmd.Flags().Changed
	for _, c := range []struct {
		bad        bool
		arg, other string
	}{
		{fl.keyed && set("derive-key"), "keyed", "derive-key"},
		{fl.check && set("derive-key"), "derive-key", "check"},
		{fl.check && fl.keyed, "keyed", "check"},
		{fl.check && set("length"), "length", "check"},
		{fl.check && fl.raw, "raw", "check"},
		{fl.check && fl.noNames, "no-names", "check"},
	} {
		if c.bad {
			return usageError(cmd, fmt.Sprintf("The argument '%s' cannot be used with '%s'", clapNames[c.arg], clapNames[c.other]))
		}
	}
	if fl.quiet && !fl.check {
		return usageError(cmd, "The following required arguments were not provided:\n    --check", "check")
	}
	if set("subtree") {
		if msg := subtreeUsage(set, args); msg != "" {
			return fail("Error: " + msg)
		}
	}
	if fl.keyed && len(args) == 0 {
		return usageError(cmd, "The following required arguments were not provided:\n    <FILE>...")
	}
	device, err := blake3.ParseDevice(fl.device)
	if err != nil {
		return fail("error: Invalid value for '--device <DEVICE>': " + err.Error())
	}
	if len(args) == 0 {
		args = []string{"-"}
	}
	if fl.raw && len(args) > 1 {
		return fail("Error: Only one filename can be provided when using --raw")
	}
	opts := blake3.AutoOptions{Device: device, GPU: g.GPU, Group: g.Group}
	r := &b3run{fl: fl, stdin: cmd.InOrStdin(), out: b3out{w: bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)}, errOut: errOut}
	if fl.keyed {
		key, msg := readKey(r.stdin)
		if msg != "" {
			return fail("Error: " + msg)
		}
		opts.Key = key
	}
	if set("derive-key") {
		opts.DeriveKey, opts.Context = true, fl.deriveKey
	}
	threads, msg := parseRustUint(fl.numThreads)
	if msg != "" {
		return fail("Error: Failed to parse num threads.\n\nCaused by:\n    " + msg)
	}
	if threads == 0 {
		threads, _ = parseRustUint(os.Getenv("RAYON_NUM_THREADS"))
	}
	opts.Threads = int(min(threads, 1<<16))
	if r.length, msg = parseRustUint(fl.length); msg != "" {
		r.lengthErr = "Failed to parse length."
	}
	r.opts = opts.Options
	if r.auto, err = blake3.NewAuto(opts); err != nil {
		return fail("Error: " + err.Error())
	}
	if g.Process {
		// As cli.Opening.Close does: the exit frees the GPU.
		defer cli.LeftToExit()
	} else {
		defer r.auto.Close()
	}
	if set("subtree") {
		return r.subtree(args[0], fl.subtree)
	}
	if fl.check {
		for _, name := range args {
			if err := r.checkFile(name); err != nil {
				return err
			}
		}
	} else if err := r.hashFiles(args, opts); err != nil {
		return err
	}
	if r.failed {
		return cli.ExitError{Code: 1}
	}
	return nil
}

// readKey reads the 32-byte key of --keyed from standard input; the
// message, when not empty, is b3sum's for a key of another length.
func readKey(stdin io.Reader) ([]byte, string) {
	key, err := io.ReadAll(io.LimitReader(stdin, blake3.KeySize+1))
	switch {
	case err != nil:
		return nil, rustError(err)
	case len(key) < blake3.KeySize:
		return nil, fmt.Sprintf("expected %d key bytes from stdin, found %d", blake3.KeySize, len(key))
	case len(key) > blake3.KeySize:
		return nil, fmt.Sprintf("read more than %d key bytes from stdin", blake3.KeySize)
	}
	return key, ""
}

// open opens an input: name, or standard input for "-" (b3sum's rule,
// both for arguments and for the names a check file lists).
func (r *b3run) open(name string) (io.Reader, func(), error) {
	if name == "-" {
		if r.fl.keyed {
			return nil, nil, errors.New("Cannot open `-` in keyed mode")
		}
		return r.stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// hashFiles hashes the files names and prints their lines (or errors) in
// order; an error writing standard output ends the command. Regular files
// of at most smallFile bytes, which one core hashes best, are hashed a
// file per core at once, each with its own CPU-only Auto; every other
// input (standard input, larger or special files, and everything with
// --device gpu) is hashed in its turn by the command's Auto, on all cores,
// with the GPU when that helps.
func (r *b3run) hashFiles(names []string, opts blake3.AutoOptions) error {
	type result struct {
		done  chan struct{}
		sum   *blake3.OutputReader
		err   error
		later bool // for the command's Auto
	}
	res := make([]result, len(names))
	for i := range res {
		res[i].done = make(chan struct{})
	}
	small := opts
	small.Device, small.Threads = blake3.DeviceCPU, 1
	var next atomic.Int64
	var stop atomic.Bool
	// claim hashes the next file nobody took yet, if any is left.
	claim := func(a *blake3.Auto) bool {
		i := int(next.Add(1) - 1)
		if i >= len(names) || stop.Load() {
			return false
		}
		defer close(res[i].done)
		// Only regular files are opened here: opening a FIFO twice would
		// lose what its writer wrote.
		var fi os.FileInfo
		err := os.ErrInvalid
		if names[i] != "-" && opts.Device != blake3.DeviceGPU {
			fi, err = os.Stat(names[i])
		}
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > smallFile {
			res[i].later = true
			return true
		}
		f, err := os.Open(names[i])
		if err != nil {
			res[i].err = err
			return true
		}
		res[i].sum, res[i].err = a.Output(f)
		f.Close()
		return true
	}
	threads := opts.Threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if opts.Device == blake3.DeviceGPU {
		threads = 1 // every file goes to the command's Auto: no one to help
	}
	var wg sync.WaitGroup
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	for range min(threads, len(names)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, _ := blake3.NewAuto(small) // opts were checked
			for claim(a) {
			}
		}()
	}
	mine, _ := blake3.NewAuto(small)
	for i, name := range names {
	wait:
		for {
			select {
			case <-res[i].done:
				break wait
			default:
				if !claim(mine) {
					<-res[i].done
				}
			}
		}
		sum, err := res[i].sum, res[i].err
		if res[i].later {
			var in io.Reader
			var done func()
			if in, done, err = r.open(name); err == nil {
				sum, err = r.auto.Output(in)
				done()
			}
		}
		if err == nil && r.lengthErr != "" {
			err = errors.New(r.lengthErr)
		}
		if err != nil {
			r.failed = true
			fmt.Fprintf(r.errOut, "b3sum: %s: %s\n", lossyUTF8(name), rustError(err))
			continue
		}
		if r.fl.raw {
			err = r.out.output(sum, r.length, false)
		} else {
			err = r.out.line(sum, r.length, name, r.fl.noNames)
		}
		if err == nil {
			err = r.out.w.Flush()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// smallFile is the largest file hashFiles hashes on one core: the CPU path
// hashes inputs under 1 MiB on one core anyway.
const smallFile = 1 << 20

// b3out writes b3sum's output through w, reusing its buffers.
type b3out struct {
	w        *bufio.Writer
	raw, hex []byte
}

// heldOutput is how many output bytes b3sum computes and prints at a time,
// so that any --length runs in bounded memory.
const heldOutput = 16 << 10

// output writes the next n bytes of sum, in hex when hexed.
func (o *b3out) output(sum io.Reader, n uint64, hexed bool) error {
	if o.raw == nil {
		o.raw, o.hex = make([]byte, heldOutput), make([]byte, 2*heldOutput)
	}
	for n > 0 {
		k := int(min(n, heldOutput))
		if _, err := io.ReadFull(sum, o.raw[:k]); err != nil {
			return err
		}
		b := o.raw[:k]
		if hexed {
			b = o.hex[:hex.Encode(o.hex, b)]
		}
		if _, err := o.w.Write(b); err != nil {
			return err
		}
		n -= uint64(k)
	}
	return nil
}

// line writes one output line as b3sum 1.2.0 does: n bytes of sum in hex,
// two spaces and the name. A name that is not UTF-8 is printed with U+FFFD
// for each invalid sequence; a name holding a backslash or a newline has
// them escaped (\\ and \n) and the line starts with a backslash. Nothing
// else is escaped: a carriage return is printed as it is.
func (o *b3out) line(sum io.Reader, n uint64, name string, noNames bool) error {
	suffix := "\n"
	if !noNames {
		name = lossyUTF8(name)
		if strings.ContainsAny(name, "\\\n") {
			name = strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(name)
			o.w.WriteByte('\\')
		}
		suffix = "  " + name + suffix
	}
	if err := o.output(sum, n, true); err != nil {
		return err
	}
	_, err := o.w.WriteString(suffix)
	return err
}

// lossyUTF8 replaces each maximal invalid subsequence of s by U+FFFD, as
// Rust's String::from_utf8_lossy does, which is how b3sum prints names.
func lossyUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n > 1 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += invalidLen(s[i:])
	}
	return b.String()
}

// invalidLen is the length of the maximal subpart that starts s, where an
// invalid sequence starts: the longest prefix of a well-formed sequence,
// at least one byte (Unicode's Table 3-7 of well-formed sequences).
func invalidLen(s string) int {
	lo, hi := byte(0x80), byte(0xBF)
	need := 0
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(s); n++ {
		if s[n] < lo || s[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}
