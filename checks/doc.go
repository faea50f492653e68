// Package checks holds what mpidbg knows about MPI usage errors: the
// catalogue of findings (stable ids, categories, severities, the MPI rule
// each one enforces and its documentation for `mpidbg explain`), the
// Finding type every part of mpidbg passes around, and the checks that
// need the datatype model. It does no I/O: the shim feeds it events and
// sends what it returns; the report renders it.
package checks
