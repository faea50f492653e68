package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

// TestGenerated fails when a generated file differs from what the table
// gives: run go run ./shim/gen from the repository root.
func TestGenerated(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, TablePath))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Errorf("%s: %v (run go run ./shim/gen)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go run ./shim/gen from the repository root", name)
		}
	}
	c := string(files[WrappersPath])
	if first, _, _ := strings.Cut(c, "\n"); first != Header {
		t.Errorf("first line of %s: got %q, want %q", WrappersPath, first, Header)
	}
}

// TestParseErrors checks that the table's mistakes are caught with the
// line and the reason.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"p2p int MPI_Send(const void *buf{S n=count t=datatype}, int count{count}, MPI_Datatype datatype)", `has role ""`},
		{"p2p int MPI_Send(const void *buf{S n=count}, int count{count})", "neither t= nor types="},
		{"p2p int MPI_Send(const void *buf{Q})", `unknown role "Q"`},
		{"nope int MPI_Send(void)", `unknown class "nope"`},
		{"p2p+later int MPI_Send(void)", "unknown class flag +later"},
		{"p2p int MPI_Send(const void *buf{S n=count*many t=datatype}, int count{count}, MPI_Datatype datatype{type})", "unknown multiplier many"},
		{"coll int MPI_Gatherv(void *recvbuf{R counts=recvcounts t=recvtype}, const int recvcounts[]{counts}, MPI_Datatype recvtype{type})", "needs both counts= and displs="},
		{"p2p int MPI_Send(const void *buf{S n=count t=datatype sig=top}, int count{count}, MPI_Datatype datatype{type})", "sig=top"},
		{"p2p int MPI_Send(void)\np2p int MPI_Send(void)", "already on line 1"},
		{"coll int MPI_Barrier(MPI_Comm comm{comm collective})", "collective is for the first {comm} of a comm-ctor or topo call"},
		{"comm-ctor int MPI_Comm_x(MPI_Comm a{comm}, MPI_Comm b{comm collective}, MPI_Comm *c{newcomm})", "b: collective is for the first {comm}"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.line))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.60s: got %v, want an error containing %q", tt.line, err, tt.want)
		}
	}
}

// TestRoles checks a few generated wrappers for the checks their roles
// ask for.
func TestRoles(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, TablePath))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	c := string(files[WrappersPath])
	body := func(name string) string {
		i := strings.Index(c, "\nint "+name+"(")
		if i < 0 {
			t.Fatalf("no wrapper for %s", name)
		}
		j := strings.Index(c[i:], "\n}\n")
		return c[i : i+j]
	}
	tests := []struct {
		fn   string
		want []string
	}{
		{"MPI_Send", []string{`mpidbg_chk_dest(&cx, dest, "dest")`, `mpidbg_chk_stag(&cx, tag, "tag")`, `mpidbg_chk_type(&cx, datatype, "datatype", 1, &ti_datatype)`, "mpidbg_chk_overlaps(&cx)", "return PMPI_Send("}},
		{"MPI_Irecv", []string{`mpidbg_chk_source(&cx, source, "source")`, `mpidbg_chk_rtag(&cx, tag, "tag")`, "MPIDBG_WR", "mpidbg_req_track_pre(&cx);\n    int rc = PMPI_Irecv(", "mpidbg_req_new(&cx, request, 0)"}},
		{"MPI_Imrecv_c", []string{"mpidbg_req_track_pre(&cx);\n    int rc = PMPI_Imrecv_c("}},
		{"MPI_Reduce", []string{"MPIDBG_SIG_LEAF, MPIDBG_INPLACE_ROOT", "MPIDBG_SIG_ROOT, MPIDBG_INPLACE_NO", `mpidbg_chk_op(&cx, op, "op")`}},
		{"MPI_Type_commit", []string{"mpidbg_chk_committype", "mpidbg_type_commit(&cx, *datatype)"}},
		{"MPI_Type_vector", []string{"mpidbg_pre_MPI_Type_vector(&cx, count, blocklength, stride, oldtype, newtype)", "mpidbg_type_new(&cx, *newtype, &oldtype, 1)"}},
		{"MPI_Type_create_struct", []string{"mpidbg_type_new(&cx, *newtype, array_of_types, (int64_t)count)"}},
		{"MPI_Type_match_size", []string{"mpidbg_type_new(&cx, *datatype, NULL, 0)"}},
		{"MPI_Send_init", []string{"cx.persistent = 1;"}},
		{"MPI_Cancel", []string{"x_request = mpidbg_req_real(*request);", "*u_request = x_request;"}},
		{"MPI_Request_get_status", []string{"request = mpidbg_req_real(request);"}},
		{"MPI_Comm_idup", []string{"mpidbg_req_deferred_comm(&cx, *request, newcomm)"}},
		{"MPI_Alltoallw", []string{"mpidbg_chk_types(&cx, sendtypes, sendcounts, sizeof *sendcounts, mpidbg_nproc(&cx), \"sendtypes\", 1)"}},
	}
	// only receives without a send side watch their buffer before the call
	for _, fn := range []string{"MPI_Isend", "MPI_Isendrecv", "MPI_Isendrecv_replace", "MPI_Iallreduce", "MPI_Recv_init"} {
		if b := body(fn); strings.Contains(b, "mpidbg_req_track_pre") {
			t.Errorf("%s watches its buffer before the call:\n%s", fn, b)
		}
	}
	for _, tt := range tests {
		b := body(tt.fn)
		for _, w := range tt.want {
			if !strings.Contains(b, w) {
				t.Errorf("%s: no %q in\n%s", tt.fn, w, b)
			}
		}
	}
}
