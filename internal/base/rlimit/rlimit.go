// Package rlimit reads the process's resource limits that the library
// and wgbench size their memory by: the address space (ulimit -v), which
// a device's mappings and every thread's stack count against, and the
// stack glibc gives each thread (ulimit -s).
package rlimit
