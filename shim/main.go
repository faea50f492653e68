package main

// The generated files (calls.tbl's wrappers, the finding catalogue's C
// view): go generate ./... at the module's root, or go generate ./shim.
//go:generate go run ./gen -dir ..

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#cgo !openmpi CFLAGS: -I/usr/include/x86_64-linux-gnu/mpich
#cgo !openmpi LDFLAGS: -lmpich
#cgo openmpi CFLAGS: -I/usr/lib/x86_64-linux-gnu/openmpi/include
#cgo openmpi LDFLAGS: -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
#cgo LDFLAGS: -ldl
#include "engine.h"
*/
import "C"

func main() {}
