package main

// addressSpaceLimit: Windows has no RLIMIT_AS.
func addressSpaceLimit() (uint64, bool) { return 0, false }
