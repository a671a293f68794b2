//go:build !unix

package rlimit

// AddressSpace: there is no RLIMIT_AS here.
func AddressSpace() (uint64, bool) { return 0, false }

// Stack: there is no RLIMIT_STACK here.
func Stack() (uint64, bool) { return 0, false }
