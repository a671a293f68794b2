//go:build !unix

package wgpu

// addressSpaceLimit: there is no RLIMIT_AS here.
func addressSpaceLimit() (uint64, bool) { return 0, false }
