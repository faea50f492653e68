// Package registry decodes the mpidbg registry (shim/reg.h, version
// 1) from any memory reader: the Go engine inside a rank reading its own
// memory, gdb reading a live rank or a core file, a /proc/PID/mem reader.
// It is the one decoder of that layout in the project.
//
// The decoder trusts nothing it reads: counts, sizes and addresses are
// checked against limits before they are used, so a corrupted registry
// from a dying process gives a FormatError naming the field and its
// address, never a panic or an unbounded allocation.
package registry
