package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
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
exit status is 1. With WGCOMPUTE_BACKEND=cpu the plain-Go reference hashes.`,
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
			out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
			failed := false
			for _, name := range args {
				sum, err := b3file(hash, name, stdin)
				if err != nil {
					fmt.Fprintf(errOut, "b3sum: %s: %v\n", name, err)
					failed = true
					continue
				}
				fmt.Fprintln(out, b3line(hex.EncodeToString(sum), name, noNames))
			}
			if failed {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&keyed, "keyed", false, "keyed mode; the 32-byte key is read from standard input")
	f.StringVar(&context, "derive-key", "", "key derivation mode with this context string")
	f.IntVarP(&length, "length", "l", blake3.Size, "output length in bytes (extended output past 32)")
	f.BoolVar(&noNames, "no-names", false, "omit file names from the output")
	return cmd
}

// b3hasher returns the function that hashes a reader: on the GPU, or with
// the reference when WGCOMPUTE_BACKEND=cpu selects it.
func b3hasher(g *globals, opts blake3.Options) (func(io.Reader) ([]byte, error), func(), error) {
	ctx, err := g.openContext()
	if errors.Is(err, wgpu.ErrCPUBackend) {
		return func(r io.Reader) ([]byte, error) { return b3cpu(r, opts) }, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return func(r io.Reader) ([]byte, error) { return blake3.SumReader(ctx, r, opts) }, func() { ctx.Close() }, nil
}

func b3cpu(r io.Reader, opts blake3.Options) ([]byte, error) {
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
	return out, nil
}

func b3file(hash func(io.Reader) ([]byte, error), name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return hash(stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, errors.Unwrap(err) // the *PathError repeats the name
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, errors.New("is a directory")
	}
	return hash(f)
}

// b3line formats one output line as b3sum does: a name holding a
// backslash or a newline is escaped and the line starts with a backslash.
func b3line(sum, name string, noNames bool) string {
	if noNames {
		return sum
	}
	if strings.ContainsAny(name, "\\\n\r") {
		name = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r").Replace(name)
		return "\\" + sum + "  " + name
	}
	return sum + "  " + name
}
