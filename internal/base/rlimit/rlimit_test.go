//go:build linux

package rlimit

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The limits are the shell's ulimit -v and -s, in a child started under
// chosen ones, and none where they are unlimited.
func TestLimits(t *testing.T) {
	if os.Getenv("RLIMIT_CHILD") != "" {
		as, asOK := AddressSpace()
		st, stOK := Stack()
		os.Stdout.WriteString(strconv.FormatBool(asOK) + " " + strconv.FormatUint(as, 10) + " " + strconv.FormatBool(stOK) + " " + strconv.FormatUint(st, 10) + "\n")
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	run := func(ulimits string) string {
		cmd := exec.Command("sh", "-c", ulimits+"; exec \"$0\" -test.run '^TestLimits$'", os.Args[0])
		cmd.Env = append(os.Environ(), "RLIMIT_CHILD=1")
		out, err := cmd.Output()
		require.NoError(t, err, "%s", out)
		return strings.SplitN(string(out), "\n", 2)[0]
	}
	require.Equal(t, "true 17179869184 true 16777216", run("ulimit -v 16777216 && ulimit -s 16384"))
	if out := run("ulimit -v unlimited 2>/dev/null; ulimit -s unlimited 2>/dev/null"); out != "false 0 false 0" {
		// A hard limit below unlimited refuses the raise: nothing to check.
		t.Logf("unlimited not reachable here: %s", out)
	}
}
