package nttcmd

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/checked"
)

// NewEncode returns the encode command.
func NewEncode(g *cli.Globals) *cobra.Command {
	var (
		fieldName, in, out, matrix string
		rate                       int
	)
	cmd := &cobra.Command{
		Use:   "encode --field F --rate R --matrix ROWSxCOLS --in FILE [--out FILE]",
		Short: "Reed-Solomon encoding of each row of a matrix, on the GPU",
		Long: `encode Reed-Solomon encodes each row of the matrix in --in (ROWS rows of COLS
canonical little-endian elements of --field: uint32 for koalabear and
babybear, uint64 for goldilocks; row by row; COLS a power of two) at rate 1/R, on the GPU, and writes the ROWS
codewords of COLS·R elements, in the same format, to --out (or stdout).

A row holds the evaluations of a polynomial of degree below COLS on the
subgroup of order COLS; its codeword is the evaluations of the same polynomial
on the subgroup of order COLS·R, in natural order: exactly what gnark-crypto's
koalabear/vortex Params.EncodeReedSolomon makes (R = 2, 4 or 8 there; 16 is
taken too). COLS·R is at most 2^24 for koalabear, 2^27 for babybear, 2^32 for
goldilocks.

Input is validated in full before anything runs; --out never holds a partial
result. --backend cpu encodes on all cores with gnark-crypto's fft.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fieldName == (field.Goldilocks{}).Name() {
				return encode(cmd, g, field.Goldilocks{}, matrix, rate, in, out)
			}
			f, err := nttField(fieldName)
			if err != nil {
				return err
			}
			return encode(cmd, g, f, matrix, rate, in, out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&fieldName, "field", "koalabear", "the elements' field: koalabear, babybear (uint32) or goldilocks (uint64)")
	fl.IntVar(&rate, "rate", 2, "the inverse rate R: 2, 4, 8 or 16")
	fl.StringVar(&matrix, "matrix", "", "the shape, ROWSxCOLS (required)")
	fl.StringVar(&in, "in", "", "input file: the matrix, little-endian elements, row by row (required)")
	fl.StringVar(&out, "out", "", "output file (default: stdout)")
	cmd.MarkFlagRequired("matrix")
	cmd.MarkFlagRequired("in")
	return cmd
}

// encode checks the shape of matrix (ROWSxCOLS elements of f) and rate
// and encodes file in into out.
func encode[E field.Element](cmd *cobra.Command, g *cli.Globals, f field.Field[E], matrix string, rate int, in, out string) error {
	rows, cols, err := parseEncodeShape(matrix)
	if err != nil {
		return err
	}
	logN, err := ntt.CheckExtend(f, cols, rate)
	if err != nil {
		return fmt.Errorf("encode: --matrix %s --rate %d: %w", matrix, rate, err)
	}
	elemBytes := field.ElementSize[E]()
	size, err := checked.Mul(rows, cols, elemBytes)
	if err != nil {
		return fmt.Errorf("encode: --matrix %s: %w bytes", matrix, err)
	}
	outLen, err := checked.Mul(rows, cols, rate)
	if err != nil {
		return fmt.Errorf("encode: --matrix %s at --rate %d: %w elements", matrix, rate, err)
	}
	return encodeFile(cmd, g, f, matrix, logN, rate, size, outLen, in, out)
}

// encodeFile encodes the rows of file in (a matrix of size bytes of
// elements of E, rows of 2^logN) at rate and writes the outLen elements
// of the codewords to out.
func encodeFile[E field.Element](cmd *cobra.Command, g *cli.Globals, f field.Field[E], matrix string, logN, rate, size, outLen int, in, out string) error {
	data, err := readRows[E](g, "encode", f, in, 1<<logN, float64(2+rate), int64(size),
		fmt.Sprintf("a %s matrix of uint%d", matrix, 8*field.ElementSize[E]()))
	if err != nil {
		return err
	}
	es := int(unsafe.Sizeof(E(0)))
	if len(data)*es != size {
		return fmt.Errorf("encode: %s is %d bytes: a %s matrix of uint%d is %d bytes", in, len(data)*es, matrix, 8*es, size)
	}
	devices := g.OpenSoon(0)
	defer devices.Close()
	ctx, err := firstContext(devices)
	if err != nil {
		return err
	}
	dst := make([]E, outLen)
	if err := ntt.EncodeReedSolomon(ctx, f, dst, data, logN, rate); err != nil {
		return err
	}
	return writeRows(cmd, "encode", out, dst)
}

// parseEncodeShape reads ROWSxCOLS ("2048x524288").
func parseEncodeShape(s string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(strings.ToLower(s), "x")
	rows, errR := strconv.Atoi(r)
	cols, errC := strconv.Atoi(c)
	if !ok || errR != nil || errC != nil || rows < 1 || cols < 1 {
		return 0, 0, fmt.Errorf("encode: --matrix %q: want ROWSxCOLS, as 2048x524288 (1 row or more; COLS a power of two)", s)
	}
	return rows, cols, nil
}
