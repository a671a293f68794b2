package cli

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRevision: the commit is the build's vcs.revision, else the one
// -ldflags "-X .../cmd/wgbench/internal/cli.commit=..." gave (make build),
// else unknown.
func TestRevision(t *testing.T) {
	defer func(c string) { commit = c }(commit)
	stamped := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}}
	commit = ""
	require.Equal(t, "unknown", revision(&debug.BuildInfo{}, true))
	require.Equal(t, "unknown", revision(nil, false))
	require.Equal(t, "0123abc-dirty", revision(stamped, true))
	commit = "59dc21e"
	require.Equal(t, "59dc21e", revision(&debug.BuildInfo{}, true), "-buildvcs=false with -ldflags -X")
	require.Equal(t, "59dc21e", revision(nil, false))
	require.Equal(t, "0123abc-dirty", revision(stamped, true), "the VCS stamp, where there is one")
}
