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
	timeout = flag.Duration("harness.timeout", 60*time.Second, "time limit of one program run; the job is killed after it")
	only    = flag.String("harness.dirs", "", "run only the programs of these `folders` of testprogs, comma-separated (TestPlanted, TestNative; default: all)")
)

// progDirs are the program folders, children of testprogs.
var progDirs = []string{"local", "cross", "race", "rma", "nasty"}

const (
	progRoot = ".." // testprogs: the program folders are its children
	rootDir  = "../.."
	minRanks = 2
	maxRanks = 8
)

// slots runs at most two programs (or compilers) at once: 2 cores.
var slots = make(chan struct{}, 2)

func acquire() func() {
	slots <- struct{}{}
	return func() { <-slots }
}

// buildDir holds the executables, shared by the tests of one go test run.
var buildDir string

func TestMain(m *testing.M) {
	flag.Parse()
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
