//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// TestAddressSpaceLimit runs merkle under ulimit -v on a leaves file that
// the limit cannot hold, though MemAvailable could: the memory check
// refuses it before reading (it passed, and the read died with "fatal
// error: out of memory").
func TestAddressSpaceLimit(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "leaves")
	f, err := os.Create(in)
	require.NoError(t, err)
	const size = 3 << 30 // sparse: no disk, no memory until read
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	if cli.AvailableMemory() < 4*size {
		t.Skipf("MemAvailable %d would refuse the file without the limit", cli.AvailableMemory())
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	// 6 GiB of address space: less than the leaves and their tree.
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v 6291456 && exec "$0" "$@"`, exe,
		"--backend", "cpu", "merkle", "--hash", "blake3", "--in", in)
	cmd.Env = append(os.Environ(), clitest.MainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg := stderr.String()
	if len(msg) > 400 { // a runtime crash: its first lines say enough
		msg = msg[:400]
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", msg)
	require.Equal(t, 2, ee.ExitCode(), "stderr: %s", msg)
	require.Contains(t, msg, "is larger than")
	require.Contains(t, msg, "the leaves can take here")
}

// TestStreamAddressSpaceLimit reads /dev/zero, an endless stream, with ntt
// under ulimit -v: it is refused at its limit. The reader that doubled its
// buffer died with "fatal error: out of memory" on the way.
func TestStreamAddressSpaceLimit(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	// Above what wgbench needs on this machine, so that the read is what
	// meets the limit.
	kb := max(3000000, (cli.SpaceNeeded(false)+512<<20)>>10)
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v `+strconv.FormatUint(kb, 10)+` && exec "$0" "$@"`, exe,
		"--backend", "cpu", "ntt", "--field", "babybear", "--log2", "10", "--in", "/dev/zero")
	cmd.Env = append(os.Environ(), clitest.MainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg := stderr.String()
	if len(msg) > 400 {
		msg = msg[:400]
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", msg)
	require.Equal(t, 2, ee.ExitCode(), "stderr: %s", msg)
	require.Contains(t, msg, "ntt: /dev/zero is larger than")
}

// TestSpaceLimitSaid runs commands under address-space limits a little
// below what wgbench says it needs on this machine (its cores, its ulimit
// -s), where main runs but the work would not, and expects wgbench's
// message, not the runtime's stack dump ("pthread_create failed") or a
// driver's abort: selftest on the CPU, merkle with Vulkan. A fixed limit
// passed on two cores and failed on more, where the runtime's threads
// alone outgrew it before main.
func TestSpaceLimitSaid(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	leaves := filepath.Join(t.TempDir(), "leaves")
	require.NoError(t, os.WriteFile(leaves, make([]byte, 64*32), 0o644))
	below := func(gpu bool) string { return strconv.FormatUint((cli.SpaceNeeded(gpu)-64<<20)>>10, 10) }
	for _, c := range []struct {
		kb   string
		args []string
		want string
	}{
		{below(false), []string{"--backend", "cpu", "selftest"}, "wgbench needs on the CPU"},
		{below(true), []string{"--backend", "vulkan", "merkle", "--hash", "blake3", "--in", leaves}, "a GPU driver and wgbench need"},
	} {
		cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -v ` + c.kb + ` && exec "$0" "$@"`, exe}, c.args...)...)
		cmd.Env = append(os.Environ(), clitest.MainEnv+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		msg := stderr.String()
		if len(msg) > 600 {
			msg = msg[:600]
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%q: %s", c.args, msg)
		require.Equal(t, 2, ee.ExitCode(), "%q: %s", c.args, msg)
		require.Contains(t, msg, "the address space is limited to ", "%q", c.args)
		require.Contains(t, msg, c.want, "%q", c.args)
		require.NotContains(t, msg, "goroutine ", "%q", c.args)
	}
}
