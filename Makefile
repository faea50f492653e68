# mpidbg: the two commands are `make demo` and `make test` (see README.md).
# Both install what is missing first (scripts/install-deps.sh).

export PATH := $(PATH):/usr/local/go/bin
GO      ?= go
MPICC   ?= mpicc.mpich
BIN     := bin/mpidbg
LIB     := lib/libmpidbg.so
# every Go package the command links (the shim and the tools under bench/ are built apart)
SOURCES := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './shim/*' -not -path './bench/*' -not -path './testprogs/*') go.mod go.sum

.PHONY: all deps build demo test vet gotest bench fuzz clean

all: build

deps:
	@scripts/install-deps.sh

build: deps $(BIN) $(LIB)

$(BIN): $(SOURCES)
	$(GO) build -o $@ ./cmd/mpidbg

# The PMPI shim: a cgo c-shared library with the Go engine inside. The MPI
# include and library paths come from the MPI compiler wrapper.
SHIM_SOURCES := $(wildcard shim/*.c shim/*.h shim/*.go shim/calls.tbl) \
	$(shell find datatype registry checks wire -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
MPI_SHOW     := $(shell $(MPICC) -show 2>/dev/null)
$(LIB): $(SHIM_SOURCES)
	CGO_CFLAGS="-g -O2 $(filter -I%,$(MPI_SHOW))" CGO_LDFLAGS="$(filter -L%,$(MPI_SHOW))" \
		$(GO) build -buildmode=c-shared -o $@ ./shim
	@rm -f lib/libmpidbg.h

# Until the shim (lib/libmpidbg.so) exists, the demo shows the datatype
# engine on the struct of examples/s_type.expr: its tree, type map, the
# element a path names, and a sender/receiver signature mismatch.
demo: build
	@echo "== the datatype of examples/s_type.expr"
	$(BIN) inspect "$$(cat examples/s_type.expr)"
	@echo
	@echo "== which element is s_type[2][5]?"
	$(BIN) inspect --path 's_type[2][5]' "$$(cat examples/s_type.expr)"
	@echo
	@echo "== a sender and a receiver that disagree on the layout"
	$(BIN) inspect --send-count 2 --recv-count 2 --match "$$(cat examples/s_recv.expr)" "$$(cat examples/s_type.expr)"

test: deps $(BIN) $(LIB) vet gotest

vet:
	$(GO) vet ./...

# MPIDBG_REQUIRE_MPI and MPIDBG_REQUIRE_SHIM make the tests that need MPICH
# or lib/libmpidbg.so fail instead of skip: `make test` never skips them.
gotest:
	MPIDBG_REQUIRE_MPI=1 MPIDBG_REQUIRE_SHIM=1 $(GO) test -race -count=1 ./...

# Go benchmarks of the datatype engine, then what mpidbg costs a running
# MPI program: native and mpidbg runs of bench/programs in one invocation.
bench: deps $(BIN) $(LIB)
	$(GO) test -run '^$$' -bench . -benchtime 200x ./datatype/
	$(GO) run ./bench/runner -rounds 5 -np 2

# Each fuzzer for a short while (make fuzz FUZZTIME=5m for longer).
FUZZTIME ?= 30s
fuzz:
	@for f in $$($(GO) test -list 'Fuzz.*' ./datatype/ | grep ^Fuzz); do \
		echo "== $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) ./datatype/ || exit 1; done

clean:
	rm -rf bin lib
