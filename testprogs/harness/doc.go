// Package harness runs the planted-bug suite: the programs of
// testprogs/local (checks one rank can make alone), testprogs/cross
// (cross-rank checks: type matching, collectives, deadlocks, message
// races, lost messages), testprogs/race (buffer races on nonblocking
// operations), testprogs/rma (one-sided races), testprogs/nasty (the
// forcing mode, --nasty) and testprogs/threads (the cross-rank checks
// with several threads per rank calling MPI at once,
// MPI_THREAD_MULTIPLE, with OpenMP and POSIX threads), testprogs/fortran
// (programs calling MPI through its Fortran bindings), testprogs/cpp
// (C++ programs) and testprogs/python (Python scripts calling MPI through
// mpi4py), each under
// `mpidbg run` with the shim, and
// checks that mpidbg reports exactly the findings the programs announce,
// with every MPI library it supports (MPICH and Open MPI: the subtests
// TestPlanted/mpich/NAME and TestPlanted/openmpi/NAME; docs/openmpi.md).
// It has no code of its own outside its tests.
//
// # The programs
//
// Each program folder holds one file per program and nothing else (a
// folder with .c files holds no .go files: go vet refuses C files in a
// package that does not use cgo). A program is written in C99 (NAME.c),
// free-form Fortran (NAME.f90), C++17 (NAME.cpp) or Python 3 with mpi4py
// and numpy (NAME.py); the extension picks how it is built (below) and
// how its comments start: // in C and C++, ! in Fortran, # in Python. Every header line and annotation below is written the same
// way in each language, with that language's comment marker: // ranks: 3
// in C is ! ranks: 3 in Fortran. NAME, the file name without its
// extension, is unique across the folders and languages: it names the
// subtests. Each program starts
// with a header comment that says what it does, which MPI rule it breaks
// (with the section of MPI-4.1) and what mpidbg must report on which line,
// and holds a line
//
//	// ranks: 3
//	! ranks: 3                   (Fortran)
//
// giving the number of ranks it runs with (2 to 8; more than 2 ranks are
// oversubscribed on the 2-core development machine). More header lines
// are optional:
//
//	// flags: --buffering=zero
//
// adds flags to the `mpidbg run` command line (one word per flag, as
// --name=value),
//
//	// cflags: -fopenmp
//
// adds flags to the compiler's command line, for TestPlanted and
// TestNative alike (after the source file; only -fopenmp, -pthread and
// -lm are allowed: every program is otherwise built the same way),
//
//	// runs: 10
//
// runs the program that many times under mpidbg in TestPlanted (1 to 50;
// default 1): each run must pass, and a failure names its run ("run 7 of
// 10"; a correct one-sided program's second run, with --nasty, repeats
// a quarter as often). The correct programs of testprogs/threads carry
// it, since what their threads do at once changes from run to run.
// -harness.repeat multiplies every count: make stress-threads runs
// them five times as often as make test, which keeps its runs few
// enough for the whole of make test to stay within 20 minutes; and
//
//	// native: hangs
//
// declares that the program deadlocks without mpidbg (TestNative builds
// it, then skips it). Where an erroneous program's fate depends on the
// MPI library, the header names the library in brackets (mpich, openmpi)
// and the comment says why:
//
//	// native[openmpi]: hangs      deadlocks natively with that library only
//	// native[openmpi]: crashes    dies natively with that library (TestNative
//	                               then wants a failure); under mpidbg it must not
//	// skip[openmpi]: WHY          not run with that library at all
//	// mpi: 4                      calls functions of that MPI version: not run
//	                               with an older library (Open MPI 4.1 is MPI-3.1)
//	// needs: debug-registers      its finding comes from a hardware watchpoint:
//	                               skipped, saying why, on a machine whose
//	                               watchpoints never fire (machine_test.go)
//
// Header lines are read only in the comment before the first line of
// code. A program is either
//
//   - bug_*.c, bug_*.f90, bug_*.cpp: one planted bug (rarely two, when the first cannot be
//     written alone; the comment says why). The line of each faulty MPI
//     call carries the finding ids mpidbg must report there, in the style
//     of golang.org/x/tools/go/analysis test inputs:
//
//     MPI_Send(buf, n, MPI_INT, 1, 0, comm); // want "negative-count"
//     MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, comm); // want "ID1" "ID2"
//
//     (in Fortran: see below)
//
//     want[MPI] holds only with that library, and several groups may end
//     one line; related[MPI] likewise:
//
//     MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm); // want "collective-type-mismatch" want[openmpi] "deadlock"
//
//     An id may be followed by a second quoted string, a regular
//     expression (Go's syntax, taken as written: no escapes are undone)
//     that the message of a finding with that id at that line must
//     match, anywhere in it; with several such findings, one is enough:
//
//     MPI_Recv(buf, 2, MPI_LONG, 1, 0, comm, &st); // want "type-mismatch" "sends .* where rank 0 receives"
//     x = buf[3]; // want[mpich] "buffer-access-latent" "offset 12" want[openmpi] "recv-buffer-access" "offset 12"
//
//     A quoted string is an id when it reads as one (lowercase letters,
//     digits and hyphens: "type-mismatch"), and otherwise the message
//     regexp of the id just before it; a regexp cannot hold a double
//     quote, and one that would read as an id needs another character
//     ("(truncated)" rather than "truncated"). Use regexps taken from the
//     messages both libraries really produce, for the part of the message
//     the planted bug is about.
//
//     Findings that are reported at MPI_Finalize about an object (the
//     leak-* ids, request-never-completed) point at the line that created
//     the object, so that is where their annotation goes: the MPI_Type_*
//     constructor, MPI_Comm_dup, MPI_Op_create, MPI_Win_allocate_shared,
//     MPI_Send_init, MPI_Isend... The program's comment says so each time.
//
//     The access tracker's findings (send-buffer-write,
//     recv-buffer-access, buffer-access-latent, rma-origin-race,
//     rma-target-race) go at the line of the load or store that touched
//     the buffer; the line of the operation that owned it carries
//
//     MPI_Isend(buf, n, MPI_INT, 1, 0, comm, &req); // related "send-buffer-write"
//
//     which passes when the finding wanted elsewhere names this line as a
//     related location (for rma-conflict: the second operation's line).
//
//     The cross-rank findings go where mpidbg reports them:
//     type-mismatch and message-truncated at the receiving rank's call
//     that named the receive's buffer and datatype (MPI_Recv, MPI_Irecv
//     rather than its MPI_Wait, MPI_Recv_init, MPI_Mrecv, MPI_Imrecv,
//     MPI_Sendrecv); collective-mismatch, collective-root-mismatch,
//     collective-op-mismatch and collective-type-mismatch once, at the
//     collective call of the lowest rank (a persistent collective at its
//     _init call), the other ranks' calls, when on other lines, being
//     related lines (marked // related "collective-mismatch");
//     message-race at the wildcard receive; lost-message at the send
//     nobody received; deadlock and potential-deadlock once, at the call
//     where the lowest-numbered rank of the deadlock blocks (an
//     MPI_Wait, MPI_Waitall or MPI_Waitany where it waits on requests).
//
//   - ok_*.c, ok_*.f90, ok_*.cpp: a correct program exercising the same calls (halo exchanges
//     with vector and subarray types, resized structs, MPI_IN_PLACE,
//     persistent requests, wildcards, MPI_PROC_NULL, MPI_BOTTOM,
//     nonblocking collectives, communicators, RMA, dup, pack, ...). It
//     checks its own results and prints exactly one line, "NAME: OK"
//     (its source holds that text). In Fortran that takes an explicit
//     format, write (*, '(a)') 'NAME: OK', since list-directed output
//     (print *) starts the line with a blank.
//
// In Fortran the annotations end the line as in C, after !:
//
//	call MPI_Send(buf, n, MPI_INTEGER, 1, 0, comm, ierr) ! want "negative-count"
//
// A statement continued over several lines (with &) is reported at its
// last line, where gfortran's line table places the whole statement: the
// annotation goes at the end of that line, and one on a line that ends in
// & is refused:
//
//	call MPI_Recv(buf, 2, MPI_INTEGER, 1, 0, &
//	              comm, status, ierr) ! want "type-mismatch"
//
// Every program is deterministic (the threaded ones in their output and
// findings, whatever order their threads' calls take), finishes in well
// under a second (ok_mt_slow_sender.c, whose thread computes for a second
// while a thread of the other rank waits for it, is the exception) and
// exits 0 when run natively (TestNative checks it, with each library),
// except the programs declared "// native: hangs", whose bug deadlocks
// the MPI library itself, and those declared hanging or crashing with one
// library. A bug
// program may print nothing natively but UCX's own log lines (UCX warns on
// standard output about messages still unmatched at MPI_Finalize, which
// lost-message bugs leave). A bug that makes
// MPICH's default error handler abort the job is written with
// MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), so that the
// call fails and the program goes on; such programs are built so that no
// rank waits for what the failed call would have done.
//
// # What passes
//
// For each program and each MPI library, TestPlanted builds it with the
// library's compiler wrapper for its language and the flags every
// program of that language gets (testprogs/harness/lang_test.go), then
// its cflags; a compiler warning fails the test:
//
//	C        mpicc.mpich, mpicc.openmpi (gcc)       -std=c99 -g -O0 -Wall -Wextra
//	Fortran  mpif90.mpich, mpif90.openmpi (gfortran) -g -O0 -Wall -Wextra -Wno-unused-parameter -fdiagnostics-plain-output
//	C++      mpicxx.mpich, mpicxx.openmpi (g++)     -std=c++17 -g -O0 -Wall -Wextra -DMPICH_SKIP_MPICXX -DOMPI_SKIP_MPICXX
//
// Fortran programs may use any of the three bindings (use mpi_f08, use
// mpi, include 'mpif.h'), so no -std: MPICH's mpif.h is not standard
// Fortran. -Wno-unused-parameter: gfortran's warning is about PARAMETER
// constants, and mpif.h declares hundreds. MPICH's wrapper passes
// -fallow-argument-mismatch (its use mpi has no interfaces for choice
// buffers), which leaves a warning where a program passes buffers of
// different types or ranks to one routine; the harness ignores exactly
// those warnings, and Open MPI's build of the same file checks the rest.
// Open MPI's wrapper passes no such flag, so an mpif.h program must
// pass one type and rank to each routine there. The C++ programs call
// MPI's C functions; the two -D flags keep mpi.h from pulling in each
// library's old C++ bindings (gone since MPI-3.0). The compiler runs in
// a folder of the program's own, where gfortran's .mod files go. A
// wrapper or compiler that is missing (gfortran, g++) leaves the
// program out, or fails it under MPIDBG_REQUIRE_MPI.
//
// A Python program is not built: it runs as PYTHON NAME.py, where PYTHON
// is python3 as PATH finds it, else /usr/bin/python3, whichever first has
// an mpi4py that links the library at hand (mpilib.DetectPython, as
// mpidbg run picks the library for a Python program). With the other
// library the program is skipped, saying why: Debian's python3-mpi4py is
// built for Open MPI only, so on Debian the Python programs run with Open
// MPI. With no mpi4py at all they are missing (a failure under
// MPIDBG_REQUIRE_MPI). Which library runs them is known only then, so
// TestCoverage counts them for none.
//
// Then TestPlanted runs
//
//	bin/mpidbg run -n RANKS --mpi MPI --mpiexec MPIEXEC --shim SHIM --json out.json [FLAGS] ./prog      (PYTHON NAME.py)
//
// with the library's mpiexec and shim (lib/libmpidbg.so,
// lib/libmpidbg-openmpi.so), and reads out.json
// ({"version":2,"findings":[...],"outcome":{...}}); with "// runs: N" it does so N times
// and stops at the first run that fails. The annotations that hold are those
// without a library and those for this one. Then:
//
//   - every `// want "ID"` must be matched by a finding with that id whose
//     location.file ends with the program's file name (NAME.f90 for a
//     Fortran program) and whose location.line is the annotated line; the finding's ranks must be
//     non-empty and within 0..RANKS-1; with a message regexp, the message
//     of one such finding must match it;
//   - any other finding of severity error or warning is a failure (info
//     findings are logged);
//   - an ok_ program must have no finding at all, exit 0 and print its OK
//     line under mpidbg as it does natively;
//   - a bug program must end with mpidbg's exit status 0 or 1 (1: there
//     are error findings); anything else means a rank died under the shim.
//     A program that wants "deadlock" or "potential-deadlock" may end with
//     any status (mpidbg ends the job after the report), as long as it
//     ends by itself within the time limit and writes its report. A job
//     that stops after a collective mismatch without a deadlock (every
//     rank waits in the collective that reported it) is ended by mpidbg
//     too, with exit status 1.
//
// A correct program that calls MPI_Win_* runs a second time, as the
// subtest NAME_nasty, with --nasty --nasty-seed=1: the forcing mode holds,
// splits and reorders its one-sided operations, and it must still be
// clean, exit 0 and print its OK line.
//
// Failures list, per program, what was missing and what was unexpected as
// file:line, then every finding mpidbg reported and the tail of its
// output.
//
// TestCoverage needs neither MPI nor the shim: every id of the
// catalogue (checks.All) must be wanted, for each MPI library, by at
// least one bug program of any folder that runs with that library (a
// "// mpi: N" program counts for none: which libraries are new enough is
// known only when the tests run), every wanted id must be in the
// catalogue, and every program of every language must have a valid
// header and annotations (a bug program at least one want, an ok_ one
// none, and the text of its OK line).
//
// # Running it
//
//	make build                        # bin/mpidbg (TestPlanted also builds it when missing or stale)
//	go test ./testprogs/harness/      # leaves out a library or shim that is missing
//	go test ./testprogs/harness/ -run 'TestPlanted/mpich/bug_leak' -v
//	go test ./testprogs/harness/ -run 'TestPlanted/openmpi' -v
//	go test ./testprogs/harness/ -run TestPlanted -harness.dirs=cross   # one folder (TestCoverage reads all)
//	go test ./testprogs/harness/ -run 'Test(Planted|Native)' -harness.dirs=fortran,cpp
//	go test ./testprogs/harness/ -run TestNative   # the programs without mpidbg
//
// Programs run two at a time (-harness.parallel; the development machine
// has 2 cores), each with a time limit (-harness.timeout, default 60s)
// after which the whole job is terminated: SIGTERM to mpidbg's process
// group (mpiexec cleans up its ranks), then SIGKILL to every process the
// run started. A program that may hang has a limit of its own, its
// deadlock timeout (--deadlock-timeout in its flags, else 1s, half of
// mpidbg's default: its ranks spin until mpidbg ends the job) plus
// -harness.hang-slack (default 10s): a bug program declared
// "// native: hangs" (for the library at hand) or wanting deadlock,
// potential-deadlock, or a finding of the collective or epoch-lifecycle
// category. mpidbg must end such a
// job itself within its deadlock timeout of the last change (the
// deadlock's report, or the note that the ranks wait where they
// reported an error); one still running past the limit fails with "a
// hang outlived mpidbg's report". Each such run logs how long it took
// (-v).
//
// Environment:
//
//	MPIDBG_REQUIRE_MPI=1         fail instead of leaving a library out when its compiler wrapper or mpiexec is missing
//	MPIDBG_REQUIRE_SHIM=1        fail instead of leaving a library out when its shim is missing
//	MPIDBG_SHIM=PATH             MPICH's shim (default: lib/libmpidbg.so of this tree)
//	MPIDBG_SHIM_OPENMPI=PATH     Open MPI's shim (default: lib/libmpidbg-openmpi.so)
//
// A shim of this tree's lib/ that is older than the sources make builds
// it from fails TestPlanted and TestNative ("lib/libmpidbg.so is older
// than shim/hooks.c: run make build"; internal/testenv).
//
// Open MPI's mpiexec runs oversubscribed, and as root when the tests do
// (internal/testenv).
package harness
