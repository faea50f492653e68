package dap

import (
	"fmt"

	"github.com/google/go-dap"
)

// Error ids of failed responses: one per kind of failure, unique (a test
// checks it), so that a client or a bug report can name what went wrong.
const (
	errDecode       = 1001 // the request could not be decoded
	errUnsupported  = 1002 // a request this adapter does not serve
	errInternal     = 1004 // the handler failed (a panic, recovered)
	errNoSession    = 1003 // a request that needs a launched or attached job
	errLaunchArgs   = 2001 // the launch configuration is wrong
	errLaunchFailed = 2002 // the job, or gdb, could not be started
	errAttachArgs   = 2003 // the attach configuration is wrong
	errAttachFailed = 2004 // no rank could be attached
	errTwice        = 2005 // launch or attach after the session began
	errBreakpoints  = 3001 // gdb refused the breakpoints
	errExecution    = 4001 // continue, step or pause failed
	errNotStopped   = 4002 // the thread is running
	errUnknownID    = 5001 // a thread, frame or variables reference not (or no longer) known
	errStack        = 5002 // gdb could not list the stack
	errVariables    = 5003 // gdb could not list or read variables
	errEvaluate     = 5004 // an expression or command failed
	errMemory       = 5005 // memory could not be read
	errNoException  = 6001 // exceptionInfo for a thread that did not stop on one
)

// fail answers req with an error response; format and args are the
// message the user sees.
func (s *Server) fail(req dap.RequestMessage, id int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r := response(req)
	r.Success = false
	r.Message = msg
	resp := &dap.ErrorResponse{Response: r}
	resp.Body.Error = &dap.ErrorMessage{Id: id, Format: "{message}", Variables: map[string]string{"message": msg}, ShowUser: true}
	s.send(resp)
}
