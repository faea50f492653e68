package main

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
