package helper

import (
	"errors"
	"fmt"

	"github.com/mpidbg/mpidbg/internal/mpiframe"
)

// frame is one frame of a caller request, as gdb describes it.
type frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Lib  string `json:"lib"`
}

// onCaller finds the program's MPI call in a stack gdb describes
// (mpiframe.Find, the rule the DAP server follows too), and the frame
// with that call's arguments (mpiframe.ArgsFrame: a Fortran binding's C
// call). It reads no
// memory and needs no registry: the gdb extension asks it even of a
// process without the shim.
func (s *Server) onCaller(a args) (*result, error) {
	if a.Frames == nil {
		return nil, errors.New("missing argument frames (the stack, innermost frame first)")
	}
	stack := make([]mpiframe.Frame, len(a.Frames))
	for i, f := range a.Frames {
		stack[i] = mpiframe.Frame{Func: f.Func, File: f.File, Lib: f.Lib}
	}
	i := mpiframe.Find(stack)
	if i < 0 {
		return &result{text: "no MPI call in these frames", value: nil}, nil
	}
	return &result{
		text:  fmt.Sprintf("frame %d, %s, called from frame %d, %s", i, stack[i].Func, i+1, stack[i+1].Func),
		value: map[string]any{"callee": i, "caller": i + 1, "args": mpiframe.ArgsFrame(stack, i)},
	}, nil
}
