package b3sum

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
)

// b3sumVersion is what b3sum -V prints: b3sum 1.2.0's line, unchanged,
// so that scripts that read it find the version whose output bytes and
// exit status wgbench b3sum keeps.
const b3sumVersion = "b3sum 1.2.0"

// clapNames are b3sum 1.2.0's arguments as its argument parser (clap 2)
// names them in errors, by flag name; wgbench's own flags (--device,
// --subtree and the global ones) are not among them.
var clapNames = map[string]string{
	"check": "--check", "keyed": "--keyed", "no-mmap": "--no-mmap", "no-names": "--no-names",
	"quiet": "--quiet", "raw": "--raw", "derive-key": "--derive-key <CONTEXT>",
	"length": "--length <LEN>", "num-threads": "--num-threads <NUM>",
}

// usageError writes b3sum 1.2.0's usage error for msg to cmd's standard
// error and returns its exit status, 1. Its USAGE line is clap's: the
// arguments parsed so far and those named in also, sorted by name, after
// <FILE>... when --keyed (which requires files) is among them; with none,
// the general usage.
func usageError(cmd *cobra.Command, msg string, also ...string) error {
	used := slices.Clone(also)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if clapNames[f.Name] != "" && !slices.Contains(used, f.Name) {
			used = append(used, f.Name)
		}
	})
	slices.Sort(used)
	usage := "[FLAGS] [OPTIONS] [FILE]..."
	if len(used) > 0 {
		var words []string
		if slices.Contains(used, "keyed") {
			words = append(words, "<FILE>...")
		}
		for _, name := range used {
			words = append(words, clapNames[name])
		}
		usage = strings.Join(words, " ")
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "error: %s\n\nUSAGE:\n    b3sum %s\n\nFor more information try --help\n", msg, usage)
	return cli.ExitError{Code: 1}
}

// b3sumFlagError is b3sum's error for what its flags' parser rejected,
// in clap's words: an unknown flag, a missing value, a flag given twice.
// As clap, it prints the version instead when -V came before the error.
func (fl *b3flags) flagError(cmd *cobra.Command, err error) error {
	if fl.version {
		return fl.printVersion(cmd.OutOrStdout())
	}
	var unknown *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	switch {
	case fl.repeated != "":
		return usageError(cmd, fmt.Sprintf("The argument '%s' was provided more than once, but cannot be used multiple times", clapNames[fl.repeated]))
	case errors.As(err, &unknown):
		arg := "--" + unknown.GetSpecifiedName()
		if unknown.GetSpecifiedShortnames() != "" {
			arg = "-" + unknown.GetSpecifiedName()[:1]
		}
		return usageError(cmd, fmt.Sprintf("Found argument '%s' which wasn't expected, or isn't valid in this context", arg))
	case errors.As(err, &noValue) && clapNames[noValue.GetFlag().Name] != "":
		name := noValue.GetFlag().Name
		return usageError(cmd, fmt.Sprintf("The argument '%s' requires a value but none was supplied", clapNames[name]), name)
	}
	return err
}

// printVersion prints b3sumVersion, and exits 0.
func (fl *b3flags) printVersion(w io.Writer) error {
	if _, err := fmt.Fprintln(w, b3sumVersion); err != nil {
		return err
	}
	return cli.ExitError{Code: 0}
}

// onceValue is a flag's value that b3sum's parser takes at most once: a
// second Set fails, naming the flag in repeated.
type onceValue struct {
	pflag.Value
	name     string
	set      bool
	repeated *string
}

func (o *onceValue) Set(s string) error {
	if o.set {
		*o.repeated = o.name
		return fmt.Errorf("--%s was given more than once", o.name)
	}
	o.set = true
	return o.Value.Set(s)
}

// IsBoolFlag keeps a boolean flag one that takes no value.
func (o *onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// clapFlags makes b3sum's own flags of f take a value at most once, as
// clap does, recording a repeated one in repeated.
func clapFlags(f *pflag.FlagSet, repeated *string) {
	f.VisitAll(func(fl *pflag.Flag) {
		if clapNames[fl.Name] != "" {
			fl.Value = &onceValue{Value: fl.Value, name: fl.Name, repeated: repeated}
		}
	})
}
