package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// commit is the source's revision as the build gives it with
// -ldflags "-X github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli.commit=$(git rev-parse --short HEAD)" (make build),
// for a binary built without a VCS stamp (-buildvcs=false, a source tree
// without .git, go build of a copied tree).
var commit string

// SourceCommit is the VCS revision the binary was built from: the build
// information's vcs.revision (with "-dirty" when it had changes), else
// the one -ldflags gave (commit), else "unknown" (go run, go test).
func SourceCommit() string {
	return revision(debug.ReadBuildInfo())
}

// revision is SourceCommit of the build information bi.
func revision(bi *debug.BuildInfo, ok bool) string {
	rev, dirty := "", false
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	switch {
	case rev == "" && commit != "":
		return commit
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

// versionLine is what wgbench --version prints after "wgbench ": the
// module's version, the commit and the Go version.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	v, goVersion := "(devel)", runtime.Version()
	if ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("%s, commit %s, %s", v, revision(bi, ok), goVersion)
}

// HostCPU names this machine's CPU count, for CPU-reference columns.
func HostCPU() string { return fmt.Sprintf("%d threads", runtime.NumCPU()) }
