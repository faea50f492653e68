// Package testenv holds the settings the tests make on the machine they
// run on, for the MPI libraries under test.
package testenv

import "os"

// OpenMPI lets Open MPI's mpiexec start more ranks than there are cores
// (the tests run up to 8 ranks on 2) and, when the tests run as root (CI
// does), run at all. Each variable is set only when the environment does
// not already say; a user of mpidbg makes these choices for themselves.
func OpenMPI() {
	set := func(k, v string) {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	set("OMPI_MCA_rmaps_base_oversubscribe", "1")
	if os.Geteuid() == 0 {
		set("OMPI_ALLOW_RUN_AS_ROOT", "1")
		set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	}
}
