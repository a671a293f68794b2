package b3sum

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// checkFile checks the sums that the check file name lists, one line at a
// time, as b3sum 1.2.0 does: "<name>: OK" (unless --quiet), "<name>:
// FAILED" or "<name>: FAILED (<error>)" on standard output, a malformed
// line's error on standard error, and any failure exits 1 at the end. A
// check file that cannot be opened or read, or that is not UTF-8, ends the
// command with exit status 1 at once.
func (r *b3run) checkFile(name string) error {
	in, done, err := r.open(name)
	if err != nil {
		fmt.Fprintln(r.errOut, "Error: "+rustError(err))
		return cli.ExitError{Code: 1}
	}
	defer done()
	lines := bufio.NewReader(in)
	for {
		line, err := lines.ReadString('\n')
		if len(line) > 0 {
			if !utf8.ValidString(line) {
				fmt.Fprintln(r.errOut, "Error: stream did not contain valid UTF-8")
				return cli.ExitError{Code: 1}
			}
			if werr := r.checkLine(line); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			fmt.Fprintln(r.errOut, "Error: "+rustError(err))
			return cli.ExitError{Code: 1}
		}
	}
}

// checkLine checks one line of a check file; it returns only errors
// writing standard output.
func (r *b3run) checkLine(line string) error {
	c, err := parseCheckLine(line)
	if err != nil {
		r.failed = true
		fmt.Fprintf(r.errOut, "b3sum: %v\n", err)
		return nil
	}
	shown := c.file
	if c.escaped {
		shown = `\` + shown
	}
	in, done, err := r.open(c.path)
	var sum []byte
	if err == nil {
		sum, err = r.auto.SumReader(in)
		done()
	}
	switch {
	case err != nil:
		r.failed = true
		fmt.Fprintf(r.out.w, "%s: FAILED (%s)\n", shown, rustError(err))
	case bytes.Equal(sum, c.sum[:]):
		if !r.fl.quiet {
			fmt.Fprintf(r.out.w, "%s: OK\n", shown)
		}
	default:
		r.failed = true
		fmt.Fprintf(r.out.w, "%s: FAILED\n", shown)
	}
	return r.out.w.Flush()
}

// checkLine is one parsed line of a check file.
type checkLine struct {
	sum     [blake3.Size]byte
	file    string // the name as the line has it
	escaped bool   // the line started with a backslash
	path    string // the name unescaped
}

// parseCheckLine parses "<64 lowercase hex digits>  <name>\n", the name
// escaped when the line starts with a backslash, with b3sum 1.2.0's rules
// and messages.
func parseCheckLine(line string) (checkLine, error) {
	var c checkLine
	line = strings.TrimRight(line, "\n")
	if line == "" {
		return c, errors.New("Empty line")
	}
	if line[0] == '\\' {
		c.escaped, line = true, line[1:]
	}
	const hexLen = 2 * blake3.Size
	if len(line) <= hexLen+2 {
		return c, errors.New("Short line")
	}
	for i := 0; i < hexLen+2; i++ {
		if line[i] >= utf8.RuneSelf {
			return c, errors.New("Non-ASCII prefix")
		}
	}
	if line[hexLen:hexLen+2] != "  " {
		return c, errors.New("Invalid space")
	}
	for i := range c.sum {
		hi, lo := hexDigit(line[2*i]), hexDigit(line[2*i+1])
		if hi < 0 || lo < 0 {
			return c, errors.New("Invalid hex")
		}
		c.sum[i] = byte(hi<<4 | lo)
	}
	c.file, c.path = line[hexLen+2:], line[hexLen+2:]
	if c.escaped {
		var b strings.Builder
		for rest := c.path; ; {
			i := strings.IndexByte(rest, '\\')
			if i < 0 {
				b.WriteString(rest)
				break
			}
			if i+1 >= len(rest) || (rest[i+1] != 'n' && rest[i+1] != '\\') {
				return c, errors.New("Invalid backslash escape")
			}
			b.WriteString(rest[:i])
			if rest[i+1] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte('\\')
			}
			rest = rest[i+2:]
		}
		c.path = b.String()
	}
	switch {
	case strings.ContainsRune(c.path, 0):
		return c, errors.New("Null character in path")
	case strings.ContainsRune(c.path, utf8.RuneError):
		return c, errors.New("Unicode replacement character in path")
	}
	return c, nil
}

// hexDigit is the value of a lowercase hex digit, -1 for anything else.
func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// rustError is err as b3sum prints it: an OS error as Rust's io::Error
// shows one ("No such file or directory (os error 2)"), anything else as
// its message.
func rustError(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:] + " (os error " + strconv.Itoa(int(errno)) + ")"
	}
	return err.Error()
}

// parseRustUint parses s as Rust's u64 parser does (an optional '+', then
// decimal digits only), returning its error message, if any.
func parseRustUint(s string) (uint64, string) {
	digits := strings.TrimPrefix(s, "+")
	switch {
	case s == "":
		return 0, "cannot parse integer from empty string"
	case digits == "" || strings.Trim(digits, "0123456789") != "":
		return 0, "invalid digit found in string"
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, "number too large to fit in target type"
	}
	return n, ""
}
