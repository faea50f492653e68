package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// replayC: fence epochs of puts, gets and accumulates to every other
// rank, each epoch with enough operations (some split into elements) for
// the random order to differ from seed to seed. Deterministic: the same
// operations at the same synchronisation calls on every run.
const replayC = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	int rank, size, mem[64], out[4] = {1, 2, 3, 4}, in[4], one = 1;
	MPI_Win win;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < 64; i++)
		mem[i] = 0;
	MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	for (int e = 0; e < 4; e++) {
		MPI_Win_fence(0, win);
		for (int t = 0; t < size; t++) {
			MPI_Put(out, 4, MPI_INT, t, 4 * rank, 4, MPI_INT, win);
			MPI_Get(&in[t], 1, MPI_INT, t, 32 + rank, 1, MPI_INT, win); /* one result each: two pending gets must not write one buffer */
			MPI_Accumulate(&one, 1, MPI_INT, t, 48, 1, MPI_INT, MPI_SUM, win);
			MPI_Accumulate(&one, 1, MPI_INT, t, 49, 1, MPI_INT, MPI_SUM, win);
		}
		MPI_Win_fence(0, win);
	}
	int ok = mem[48] == 4 * size && mem[49] == 4 * size;
	MPI_Win_free(&win);
	MPI_Finalize();
	if (!ok)
		printf("rank %d: accumulates gave %d %d\n", rank, mem[48], mem[49]);
	return !ok;
}
`

// TestNastyReplayMPICH: the same seed gives the same order of issue on
// every rank (MPIDBG_NASTY_TRACE), another seed another order; the
// accumulates to one target keep program order whatever the seed, and
// multi-element operations are issued element by element.
func TestNastyReplayMPICH(t *testing.T) {
	shim := needMPICH(t)
	dir := t.TempDir()
	exe := compile(t, dir, "replay", strings.ReplaceAll(replayC, "\t", "    "))
	t.Setenv(envvar.MPIExecTimeout, "120")
	t.Setenv(envvar.NoColor, "1")
	clearNastyEnv(t)
	trace := func(name string, flags ...string) map[string][]string {
		t.Helper()
		file := filepath.Join(dir, name)
		args := append([]string{"run", "-n", "3", "--shim", shim, "--nasty", "--nasty-trace", file}, flags...)
		_, stderr, code := runWith(t, "", append(args, exe)...)
		if code != 0 {
			t.Fatalf("%s: exit %d; stderr:\n%s", name, code, stderr)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		byRank := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			rank, rest, _ := strings.Cut(line, " ")
			byRank[rank] = append(byRank[rank], rest)
		}
		if len(byRank) != 3 {
			t.Fatalf("%s: trace of %d ranks, want 3:\n%s", name, len(byRank), b)
		}
		return byRank
	}
	a := trace("a", "--nasty-seed=1")
	b := trace("b", "--nasty-seed=1")
	c := trace("c", "--nasty-seed=2")
	for _, r := range []string{"0", "1", "2"} {
		// 4 epochs x 3 targets x (4 put elements + 1 get + 2 accumulates)
		if len(a[r]) != 4*3*7 {
			t.Errorf("rank %s issued %d operations, want %d (the puts in 4 pieces):\n%s", r, len(a[r]), 4*3*7, strings.Join(a[r], "\n"))
		}
		if !slices.Equal(a[r], b[r]) {
			t.Errorf("rank %s: seed 1 twice gave two orders:\n%s\n--\n%s", r, strings.Join(a[r], "\n"), strings.Join(b[r], "\n"))
		}
		if slices.Equal(a[r], c[r]) {
			t.Errorf("rank %s: seeds 1 and 2 gave the same order:\n%s", r, strings.Join(a[r], "\n"))
		}
		for _, run := range [][]string{a[r], c[r]} {
			checkAccumulateOrder(t, r, run)
		}
	}
	if slices.Equal(a["0"], a["1"]) {
		t.Errorf("ranks 0 and 1 issued in the same order: the rank is not in the seed")
	}

	// program order is the order of the calls, pieces in order
	p := trace("p", "--nasty-order=program", "--nasty-split=off")
	if n := len(p["0"]); n != 4*3*4 {
		t.Errorf("--nasty-split=off: %d operations, want %d", n, 4*3*4)
	}
	if want := "1.0 MPI_Put 0 0+0"; len(p["0"]) == 0 || p["0"][0] != want {
		t.Errorf("--nasty-order=program: first operation %q, want %q", p["0"], want)
	}
}

// checkAccumulateOrder: within each epoch (operations numbered
// consecutively per rank), the accumulates to one target come in program
// order. A trace line is "SEQ.PIECE CALL TARGET DISP+OFF".
func checkAccumulateOrder(t *testing.T, rank string, lines []string) {
	t.Helper()
	last := map[string]int{} // target -> last accumulate's seq
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 4 || f[1] != "MPI_Accumulate" {
			continue
		}
		seq, _, _ := strings.Cut(f[0], ".")
		n := atoi(seq)
		if prev, ok := last[f[2]]; ok && n < prev {
			t.Errorf("rank %s: accumulate %d to rank %s issued after %d:\n%s", rank, n, f[2], prev, strings.Join(lines, "\n"))
			return
		}
		last[f[2]] = n
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
