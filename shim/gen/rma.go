package main

import "fmt"

// rmaFields maps the parameter names of the one-sided calls of
// calls.tbl to the fields of struct mpidbg_rma (shim/rma.h). A parameter
// not named here stops the generator (emitRMA panics).
var rmaFields = map[string][]string{
	"origin_addr":     {"origin"},
	"origin_count":    {"origin_count"},
	"origin_datatype": {"origin_type"},
	"compare_addr":    {"compare"},
	"result_addr":     {"result"},
	"result_count":    {"result_count"},
	"result_datatype": {"result_type"},
	"target_rank":     {"target_rank"},
	"target_disp":     {"target_disp"},
	"target_count":    {"target_count"},
	"target_datatype": {"target_type"},
	"op":              {"op"},
	"win":             {"win"},
	"request":         {"request"},
	// MPI_Fetch_and_op and MPI_Compare_and_swap: one datatype, one element
	"datatype": {"origin_type", "result_type", "target_type"},
}

// rmaGetCalls write their origin_addr: it is the buffer MPI fills, so it
// goes in the result field.
var rmaGetCalls = map[string]bool{"MPI_Get": true, "MPI_Rget": true, "MPI_Get_c": true, "MPI_Rget_c": true}

// emitRMA writes the PMPI call of a one-sided communication call as a
// struct mpidbg_rma handed to mpidbg_rma_issue (shim/rma_issue.c), which
// issues it now or lets the forcing mode hold it.
func emitRMA(w *wr, c *Call) {
	w.f("struct mpidbg_rma rop = {.call = MPIDBG_CALL_%s};", c.Name)
	single := false
	for _, p := range c.Params {
		fields, ok := rmaFields[p.Name]
		if !ok {
			panic(fmt.Sprintf("calls.tbl:%d: %s: parameter %s has no struct mpidbg_rma field", c.Line, c.Name, p.Name))
		}
		if p.Name == "datatype" {
			single = true
		}
		for _, f := range fields {
			if rmaGetCalls[c.Name] {
				switch f {
				case "origin":
					f = "result"
				case "origin_count":
					f = "result_count"
				case "origin_type":
					f = "result_type"
				}
			}
			w.f("rop.%s = %s;", f, p.Name)
		}
	}
	if single {
		w.f("rop.origin_count = rop.result_count = rop.target_count = 1;")
	}
	w.f("int rc = mpidbg_rma_issue(&cx, &rop);")
}

// rmaSyncFields maps the parameters of the synchronisation calls (and
// MPI_Win_free) to struct mpidbg_rma_sync.
var rmaSyncFields = map[string]string{
	"assert":    "assert_",
	"rank":      "rank",
	"lock_type": "lock_type",
	"group":     "group",
	"win":       "win",
	"flag":      "flag",
	"base":      "base",
	"size":      "size",
}

// emitRMASync declares the struct mpidbg_rma_sync rs of a
// synchronisation call for the rma.c hooks around its PMPI call.
func emitRMASync(w *wr, c *Call) {
	w.f("struct mpidbg_rma_sync rs = {.call = MPIDBG_CALL_%s};", c.Name)
	for _, p := range c.Params {
		f, ok := rmaSyncFields[p.Name]
		switch {
		case c.Name == "MPI_Win_free" && p.Name == "win":
			w.f("rs.win = win ? *win : MPI_WIN_NULL;")
		case c.Name == "MPI_Win_shared_query" && p.Name != "win" && p.Name != "rank":
			// outputs: size, disp_unit, baseptr
		case ok:
			w.f("rs.%s = %s;", f, p.Name)
		default:
			panic(fmt.Sprintf("calls.tbl:%d: %s: parameter %s has no struct mpidbg_rma_sync field", c.Line, c.Name, p.Name))
		}
	}
}
