//go:build !unix

package cli

// addressSpaceLimit: there is no RLIMIT_AS here.
func addressSpaceLimit() (uint64, bool) { return 0, false }

// threadStack: without RLIMIT_AS the stacks are not counted.
func threadStack() uint64 { return defaultStack }
