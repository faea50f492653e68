# mpidbg: the two commands are `make demo` and `make test` (see README.md).
# Both install what is missing first (scripts/install-deps.sh).

export PATH := $(PATH):/usr/local/go/bin
GO      ?= go
MPICC   ?= mpicc.mpich
MPICC_OPENMPI ?= mpicc.openmpi
BIN     := bin/mpidbg
LIB     := lib/libmpidbg.so
LIB_OPENMPI := lib/libmpidbg-openmpi.so
# every Go package the command links (the tools under bench/ are built apart)
SOURCES := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './bench/*' -not -path './testprogs/*') go.mod go.sum

.PHONY: all deps build demo test vet gotest bench fuzz clean install uninstall stress stress-threads scale

all: build

deps:
	@scripts/install-deps.sh

build: deps $(BIN) $(LIB) $(LIB_OPENMPI)

$(BIN): $(SOURCES)
	$(GO) build -o $@ ./cmd/mpidbg

# The PMPI shim: a cgo c-shared library with the Go engine inside, built
# once per MPI library from the same sources (docs/openmpi.md): for MPICH
# lib/libmpidbg.so, for Open MPI lib/libmpidbg-openmpi.so (build tag
# openmpi). The include and library paths come from each MPI's compiler
# wrapper; shim/main.go has Debian's as the fallback.
SHIM_SOURCES := $(wildcard shim/*.c shim/*.h shim/*.go shim/calls.tbl) \
	$(shell find datatype shim checks wire internal -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
MPI_SHOW     := $(shell $(MPICC) -show 2>/dev/null)
# Go's linker names its runtime-gdb.py in .debug_gdb_scripts; gdb then
# warns, in ten lines, in every session with the shim loaded (mpidbg gdb,
# mpidbg dap, plain gdb on a rank) that it declined to load it. The
# script is for debugging Go programs, not C ones that preload the shim.
STRIP_GDB_SCRIPTS := objcopy --remove-section=.debug_gdb_scripts
$(LIB): $(SHIM_SOURCES)
	CGO_CFLAGS="-g -O2 $(filter -I%,$(MPI_SHOW))" CGO_LDFLAGS="$(filter -L%,$(MPI_SHOW))" \
		$(GO) build -buildmode=c-shared -o $@ ./shim
	$(STRIP_GDB_SCRIPTS) $@ || { rm -f $@; exit 1; }
	@rm -f lib/libmpidbg.h

OPENMPI_SHOW := $(shell $(MPICC_OPENMPI) -show 2>/dev/null)
$(LIB_OPENMPI): $(SHIM_SOURCES)
	CGO_CFLAGS="-g -O2 $(filter -I%,$(OPENMPI_SHOW))" CGO_LDFLAGS="$(filter -L%,$(OPENMPI_SHOW))" \
		$(GO) build -tags openmpi -buildmode=c-shared -o $@ ./shim
	$(STRIP_GDB_SCRIPTS) $@ || { rm -f $@; exit 1; }
	@rm -f lib/libmpidbg-openmpi.h

# The demo: examples/halo.c, a halo exchange with four planted mistakes,
# run on 4 ranks under mpidbg. mpidbg exits 1 because it found errors,
# which is the point of the demo, so only other statuses fail it. Then the
# datatype engine answers a question about the type one finding names.
demo: build bin/halo
	@echo "== mpidbg run -n 4 bin/halo   (examples/halo.c)"
	@$(BIN) run -n 4 bin/halo || [ $$? -eq 1 ]
	@echo
	@echo "== why rows overlap: two instances of row_packed start 8 bytes apart (mpidbg inspect)"
	$(BIN) inspect --count 2 --typemap --limit 10 'row_packed=resized(0,8,contiguous(8,DOUBLE))'

bin/halo: examples/halo.c
	@mkdir -p bin
	$(MPICC) -g -O0 -Wno-stringop-overflow -o $@ $<

test: deps $(BIN) $(LIB) $(LIB_OPENMPI) vet gotest vscodetest pyunit

vet:
	$(GO) vet ./...

# MPIDBG_REQUIRE_MPI and MPIDBG_REQUIRE_SHIM make the tests that need an MPI
# library (MPICH, Open MPI) or its shim fail instead of skip: `make test`
# never skips them. The planted-bug harness runs every program under each
# MPI library, and TestStress 200 runs more: 12 to 14 minutes on a
# 2-core machine, 19 on a slower 2-core VM, past go test's default limit
# of 10 per package, hence -timeout (each program run has its own limit
# of 60 s, less for one that may hang). go test starts it after
# cmd/mpidbg and dap; started beside them it made the machine so busy
# that a correct polling program got a false deadlock report.
gotest:
	MPIDBG_REQUIRE_MPI=1 MPIDBG_REQUIRE_SHIM=1 $(GO) test -race -count=1 -timeout 45m ./...

# The access tracker's stress test (docs/races.md, "Never fatal"): the
# fence and PSCW programs of testprogs/rma run STRESS times in all under
# mpidbg, with MPICH and Open MPI, beside a CPU hog; no rank may die. make
# test runs 200 of them; a failed run's core files are kept and named in
# the log.
STRESS ?= 2000
stress: deps $(BIN) $(LIB) $(LIB_OPENMPI)
	MPIDBG_REQUIRE_MPI=1 MPIDBG_REQUIRE_SHIM=1 $(GO) test -count=1 -timeout 0 -run '^TestStress$$' ./testprogs/harness \
		-harness.stress $(STRESS) -harness.stress-all -v

# The correct programs of testprogs/threads, whose interleavings change
# from run to run, REPEAT times as often as make test runs them.
REPEAT ?= 5
stress-threads: deps $(BIN) $(LIB) $(LIB_OPENMPI)
	MPIDBG_REQUIRE_MPI=1 MPIDBG_REQUIRE_SHIM=1 $(GO) test -count=1 -timeout 0 -run '^TestPlanted$$' ./testprogs/harness \
		-harness.dirs threads -harness.repeat $(REPEAT) -v

# The gdb extension's unit tests (extensions/gdb/tests): plain unittest,
# with a stand-in for gdb's Python module, so they run without gdb; one
# of them talks to the real helper, bin/mpidbg gdb-helper.
.PHONY: pyunit
pyunit: $(BIN)
	cd extensions/gdb && python3 -m unittest discover -s tests -t .

# Go benchmarks of the datatype engine, then what mpidbg costs a running
# MPI program (bench-mpi). About 13 minutes on the 2-core VM with other
# work beside it; -breakdown=false in BENCH_FLAGS halves it.
bench: deps $(BIN) $(LIB) $(LIB_OPENMPI)
	$(GO) test -run '^$$' -bench . -benchtime 200x ./datatype/
	@$(MAKE) --no-print-directory bench-mpi

# bench/programs natively and under mpidbg run (local checks only, with
# the cross-rank checks, the default checks, and the default checks less
# one category at a time; bench/runner/main.go says which programs at
# which rank counts), all in one invocation, with MPICH and then with
# Open MPI. As root, Open MPI's mpiexec needs the two
# OMPI_ALLOW_RUN_AS_ROOT settings (set here for bench only); the runner
# lets it oversubscribe for the 4-rank jobs. BENCH_MPIDBG measures another
# tree's build (it preloads the shim of its own tree's lib), e.g. a
# baseline: make bench-mpi BENCH_MPIDBG=/tmp/bench-base/bin/mpidbg
BENCH_MPIDBG ?= $(BIN)
BENCH_ROUNDS ?= 5
BENCH_FLAGS ?=
.PHONY: bench-mpi
bench-mpi:
	$(GO) run ./bench/runner -rounds $(BENCH_ROUNDS) $(BENCH_FLAGS) -mpidbg $(BENCH_MPIDBG) -mpicc $(MPICC) -mpiexec mpiexec.mpich
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		$(GO) run ./bench/runner -rounds $(BENCH_ROUNDS) $(BENCH_FLAGS) -mpidbg $(BENCH_MPIDBG) -mpicc $(MPICC_OPENMPI) -mpiexec mpiexec.openmpi

# What mpidbg adds to a job's start and end as it grows (bench/scale):
# MPI_Init/Finalize alone and with a datatype leaked on every rank, natively
# and under mpidbg at SCALE_NP ranks (oversubscribed), MPICH then Open MPI;
# the wall times, the difference per rank, mpidbg's peak memory and how long
# the report takes after the last rank's exit (docs/DESIGN-SCALE.md). Up to
# 256 ranks on a 2-core machine: about half an hour.
SCALE_NP ?= 2,4,8,16,32,64,128,256
SCALE_ROUNDS ?= 3
scale: deps $(BIN) $(LIB) $(LIB_OPENMPI)
	$(GO) run ./bench/scale -np $(SCALE_NP) -rounds $(SCALE_ROUNDS) -mpidbg $(BENCH_MPIDBG) -mpicc $(MPICC) -mpiexec mpiexec.mpich
	$(GO) run ./bench/scale -np $(SCALE_NP) -rounds $(SCALE_ROUNDS) -mpidbg $(BENCH_MPIDBG) -mpicc $(MPICC_OPENMPI) -mpiexec mpiexec.openmpi

# make install: the source tree's layout under $(PREFIX)/lib/mpidbg (the
# command finds the shim and the gdb extension beside itself), the command
# linked into $(PREFIX)/bin, and the extension's script linked into gdb's
# auto-load directory under the shim's real path plus -gdb.py, so that gdb
# loads it for every process that has the shim mapped, live or in a core
# (docs/gdb.md says why not .debug_gdb_scripts). DESTDIR for packaging.
PREFIX       ?= /usr/local
GDB_AUTOLOAD ?= /usr/share/gdb/auto-load
INSTALL_ROOT := $(DESTDIR)$(PREFIX)/lib/mpidbg
install: build
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/lib $(INSTALL_ROOT)/extensions/gdb/mpidbg_gdb $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(INSTALL_ROOT)/bin/mpidbg
	install -m 644 $(LIB) $(INSTALL_ROOT)/lib/libmpidbg.so
	install -m 644 $(LIB_OPENMPI) $(INSTALL_ROOT)/lib/libmpidbg-openmpi.so
	install -m 644 extensions/gdb/mpidbg-gdb.py $(INSTALL_ROOT)/extensions/gdb/
	install -m 644 extensions/gdb/mpidbg_gdb/*.py $(INSTALL_ROOT)/extensions/gdb/mpidbg_gdb/
	install -d $(DESTDIR)$(PREFIX)/include
	install -m 644 include/mpidbg.h $(DESTDIR)$(PREFIX)/include/mpidbg.h
	ln -sf $(PREFIX)/lib/mpidbg/bin/mpidbg $(DESTDIR)$(PREFIX)/bin/mpidbg
	install -d $(DESTDIR)$(GDB_AUTOLOAD)$(PREFIX)/lib/mpidbg/lib
	ln -sf $(PREFIX)/lib/mpidbg/extensions/gdb/mpidbg-gdb.py $(DESTDIR)$(GDB_AUTOLOAD)$(PREFIX)/lib/mpidbg/lib/libmpidbg.so-gdb.py
	ln -sf $(PREFIX)/lib/mpidbg/extensions/gdb/mpidbg-gdb.py $(DESTDIR)$(GDB_AUTOLOAD)$(PREFIX)/lib/mpidbg/lib/libmpidbg-openmpi.so-gdb.py

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/lib/mpidbg
	rm -f $(DESTDIR)$(PREFIX)/include/mpidbg.h
	rm -f $(DESTDIR)$(PREFIX)/bin/mpidbg $(DESTDIR)$(GDB_AUTOLOAD)$(PREFIX)/lib/mpidbg/lib/libmpidbg.so-gdb.py \
		$(DESTDIR)$(GDB_AUTOLOAD)$(PREFIX)/lib/mpidbg/lib/libmpidbg-openmpi.so-gdb.py

# Each fuzzer of each package for a short while (make fuzz FUZZTIME=5m for longer).
FUZZTIME ?= 30s
FUZZPKGS := ./datatype/ ./shim/registry/ ./dap/gdbmi/
fuzz:
	@for p in $(FUZZPKGS); do \
		for f in $$($(GO) test -list 'Fuzz.*' $$p | grep ^Fuzz); do \
			echo "== $$p $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; done; done

clean:
	rm -rf bin lib

# The VS Code extension (extensions/vscode): plain JavaScript, nothing to
# compile. vscode packs it into build/mpidbg.vsix (npm ci installs vsce
# from package-lock.json; --no-dependencies as it has no runtime ones).
# vscodetest runs its tests with MPIDBG_REQUIRE_DAP=1, so that the tests
# of `mpidbg dap` fail instead of skipping when the adapter or the
# programs of testprogs/dap are missing.
.PHONY: vscode vscodetest vscode-e2e
vscode:
	cd extensions/vscode && npm ci --no-audit --no-fund && npm run package

DAP_PROGS := $(patsubst testprogs/dap/%.c,bin/testprogs/dap/%,$(wildcard testprogs/dap/*.c))
bin/testprogs/dap/%: testprogs/dap/%.c
	@mkdir -p $(@D)
	$(MPICC) -g -O0 -Wno-stringop-overflow -o $@ $<
# the same programs built with Open MPI: the client-level tests run both
DAP_PROGS_OPENMPI := $(patsubst testprogs/dap/%.c,bin/testprogs/dap-openmpi/%,$(wildcard testprogs/dap/*.c))
bin/testprogs/dap-openmpi/%: testprogs/dap/%.c
	@mkdir -p $(@D)
	$(MPICC_OPENMPI) -g -O0 -Wno-stringop-overflow -o $@ $<

vscodetest: $(BIN) $(LIB) $(LIB_OPENMPI) $(DAP_PROGS) $(DAP_PROGS_OPENMPI)
	cd extensions/vscode && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && \
		MPIDBG_REQUIRE_DAP=1 node --test test/*.test.js

# The extension in a real VS Code (code-server driven by headless
# Chromium; extensions/vscode/e2e/README.md): F5 on the planted bug must
# stop at its // FAULT line. A manual check, not part of make test.
vscode-e2e:
	extensions/vscode/e2e/run.sh
