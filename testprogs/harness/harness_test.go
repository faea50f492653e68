// The test binary's setup: flags, limits, the shared build directory.

package harness

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/testenv"
)

var (
	timeout  = flag.Duration("harness.timeout", 60*time.Second, "time limit of one program run; the job is killed after it")
	only     = flag.String("harness.dirs", "", "run only the programs of these `folders` of testprogs, comma-separated (TestPlanted, TestNative; default: all)")
	parallel = flag.Int("harness.parallel", 2, "run at most `N` programs (or compilers) at once")
	repeat   = flag.Int("harness.repeat", 1, "TestPlanted: run each program `K` times as often as its \"// runs:\" line says (make stress-threads: 5)")
)

// progDirs are the program folders, children of testprogs.
var progDirs = []string{"local", "cross", "race", "rma", "nasty", "threads", "fortran", "cpp", "python"}

const (
	progRoot = ".." // testprogs: the program folders are its children
	rootDir  = "../.."
	minRanks = 2
	maxRanks = 8
)

// slots runs at most -harness.parallel programs (or compilers) at once.
// Two fit the 2-core development machine: waiting ranks poll, so more
// jobs at once (four, or a budget of six ranks) made the whole suite
// slower there rather than faster, and make test runs another package's
// MPI jobs beside this one.
var slots chan struct{}

func acquire() func() {
	slots <- struct{}{}
	return func() { <-slots }
}

// buildDir holds the executables, shared by the tests of one go test run.
var buildDir string

func TestMain(m *testing.M) {
	flag.Parse()
	if *parallel < 1 {
		fmt.Fprintln(os.Stderr, "-harness.parallel must be at least 1")
		os.Exit(2)
	}
	slots = make(chan struct{}, *parallel)
	testenv.OpenMPI()
	dir, err := os.MkdirTemp("", "mpidbg-harness-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
