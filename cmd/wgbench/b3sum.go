package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
	zeebo "github.com/zeebo/blake3"
)

func newB3sumCmd(g *globals) *cobra.Command {
	var (
		keyed   bool
		context string
		length  int
		noNames bool
	)
	cmd := &cobra.Command{
		Use:   "b3sum [--keyed] [--derive-key CONTEXT] [--length N] [--no-names] [FILE...]",
		Short: "Print BLAKE3 checksums computed on the GPU, like b3sum",
		Long: `b3sum prints the BLAKE3 hash of each FILE as "<hex>  <name>", computed on the
GPU; '-' or no FILE reads standard input. --keyed reads the 32-byte key from
standard input, so the input must then come from files. A file that cannot be
read gets a message on standard error, the others are still hashed, and the
exit status is 1, as is every other error. With WGCOMPUTE_BACKEND=cpu the
plain-Go reference hashes. An output longer than 1 MiB (--length) is
computed on the CPU by zeebo/blake3 and printed as it is computed, so that
any length runs in bounded memory.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := blake3.Options{Length: length}
			derive := cmd.Flags().Changed("derive-key")
			if keyed && derive {
				return errors.New("b3sum: --keyed and --derive-key exclude each other")
			}
			if length <= 0 {
				return fmt.Errorf("b3sum: --length %d: the output length must be at least 1 byte", length)
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			stdin := cmd.InOrStdin()
			if keyed {
				for _, a := range args {
					if a == "-" {
						return errors.New("b3sum: --keyed reads the key from standard input, so the input must come from files, not '-'")
					}
				}
				key, err := io.ReadAll(io.LimitReader(stdin, blake3.KeySize+1))
				if err != nil {
					return fmt.Errorf("b3sum: read the key from standard input: %w", err)
				}
				if len(key) != blake3.KeySize {
					return fmt.Errorf("b3sum: --keyed needs exactly %d key bytes on standard input, got %d", blake3.KeySize, len(key))
				}
				opts.Key = key
			}
			if derive {
				opts.DeriveKey, opts.Context = true, context
			}
			hash, closeFn, err := b3hasher(g, opts)
			if err != nil {
				return err
			}
			defer closeFn()
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			errOut := cmd.ErrOrStderr()
			failed := false
			for _, name := range args {
				sum, err := b3file(hash, name, stdin)
				if err != nil {
					fmt.Fprintf(errOut, "b3sum: %s: %v\n", name, err)
					failed = true
					continue
				}
				if err := b3line(out, sum, name, noNames); err != nil {
					return err
				}
			}
			if failed {
				return exitError{1}
			}
			return nil
		},
	}
	cmd.Annotations = map[string]string{exitOnError: "1"}
	f := cmd.Flags()
	f.BoolVar(&keyed, "keyed", false, "keyed mode; the 32-byte key is read from standard input")
	f.StringVar(&context, "derive-key", "", "key derivation mode with this context string")
	f.IntVarP(&length, "length", "l", blake3.Size, "output length in bytes (extended output past 32)")
	f.BoolVar(&noNames, "no-names", false, "omit file names from the output")
	return cmd
}

// heldOutput is the longest output b3sum computes whole: the GPU path and
// the reference return it in one slice. A longer one (b3sum streams
// terabytes) is read from zeebo/blake3's extended-output reader as it is
// printed, so memory stays bounded; that hash runs on the CPU.
const heldOutput = 1 << 20

// b3hash hashes everything a reader yields and returns the output, exactly
// the length asked for, as a reader.
type b3hash func(io.Reader) (io.Reader, error)

// b3hasher returns the function that hashes a reader: on the GPU, with the
// reference when WGCOMPUTE_BACKEND=cpu selects it, or streaming on the CPU
// for outputs longer than heldOutput.
func b3hasher(g *globals, opts blake3.Options) (b3hash, func(), error) {
	if opts.Length > heldOutput {
		return func(r io.Reader) (io.Reader, error) { return b3stream(r, opts) }, func() {}, nil
	}
	ctx, err := g.openContext()
	if errors.Is(err, wgpu.ErrCPUBackend) {
		return func(r io.Reader) (io.Reader, error) { return b3cpu(r, opts) }, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return func(r io.Reader) (io.Reader, error) {
		sum, err := blake3.SumReader(ctx, r, opts)
		return bytes.NewReader(sum), err
	}, func() { ctx.Close() }, nil
}

// b3cpu hashes r with the plain-Go reference.
func b3cpu(r io.Reader, opts blake3.Options) (io.Reader, error) {
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
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	out := make([]byte, opts.Length)
	h.XOF(out)
	return bytes.NewReader(out), nil
}

// b3stream hashes r with zeebo/blake3 and returns its extended output
// reader, which computes the output as it is read.
func b3stream(r io.Reader, opts blake3.Options) (io.Reader, error) {
	var h *zeebo.Hasher
	switch {
	case opts.Key != nil:
		var err error
		if h, err = zeebo.NewKeyed(opts.Key); err != nil {
			return nil, err
		}
	case opts.DeriveKey:
		h = zeebo.NewDeriveKey(opts.Context)
	default:
		h = zeebo.New()
	}
	if _, err := io.Copy(h, r); err != nil {
		return nil, err
	}
	return io.LimitReader(h.Digest(), int64(opts.Length)), nil
}

// b3file hashes the file name, or stdin for '-'.
func b3file(hash b3hash, name string, stdin io.Reader) (io.Reader, error) {
	if name == "-" {
		if f, ok := stdin.(*os.File); ok {
			return b3osFile(hash, f)
		}
		return hash(stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, bare(err) // the message names the file already
	}
	defer f.Close()
	return b3osFile(hash, f)
}

// b3osFile hashes f. Only a regular file with a non-zero size goes to the
// hash as an *os.File, which the GPU path uploads by its stat size with
// parallel reads; anything else (a pipe, a FIFO, a /proc file whose size
// reads 0) is hashed as a stream, which ends where reads end. A regular
// file found shorter than its size (a sysfs file reports 4096 bytes, a
// file may be truncated while read) is hashed again as a stream, so that
// what it holds is hashed.
func b3osFile(hash b3hash, f *os.File) (io.Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, bare(err)
	}
	if fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	if fi.Mode().IsRegular() && fi.Size() > 0 {
		if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
			sum, err := hash(f)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				return sum, err
			}
			if _, err := f.Seek(pos, io.SeekStart); err != nil {
				return nil, bare(err)
			}
		}
	}
	return hash(stream{f})
}

// stream hides every method of a reader but Read, so that the hash treats
// it as a stream of unknown length.
type stream struct{ r io.Reader }

func (s stream) Read(p []byte) (int, error) { return s.r.Read(p) }

// b3line prints one output line as b3sum 1.2.0 does: the hex output, two
// spaces and the name. A name that is not UTF-8 is printed with U+FFFD for
// each invalid sequence; a name holding a backslash or a newline has them
// escaped (\\ and \n) and the line starts with a backslash. Nothing else
// is escaped: a carriage return is printed as it is. out is flushed at the
// end of the line.
func b3line(out *bufio.Writer, sum io.Reader, name string, noNames bool) error {
	suffix := "\n"
	if !noNames {
		name = lossyUTF8(name)
		if strings.ContainsAny(name, "\\\n") {
			name = strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(name)
			out.WriteByte('\\')
		}
		suffix = "  " + name + suffix
	}
	var raw [16 << 10]byte
	var hx [32 << 10]byte
	for {
		n, err := io.ReadFull(sum, raw[:])
		if _, werr := out.Write(hx[:hex.Encode(hx[:], raw[:n])]); werr != nil {
			return werr
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	out.WriteString(suffix)
	return out.Flush()
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
