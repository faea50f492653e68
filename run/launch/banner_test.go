package launch

import (
	"bytes"
	"math/rand"
	"testing"
)

const (
	hydraBanner = "\n===================================================================================\n" +
		"=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 7030 RUNNING AT vm\n=   EXIT CODE: 15\n" +
		"=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n" +
		"===================================================================================\n" +
		"YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)\n" +
		"This typically refers to a problem with your application.\nPlease see the FAQ page for debugging suggestions\n"
	dashes   = "--------------------------------------------------------------------------\n"
	ompiLine = "mpiexec noticed that process rank 0 with PID 0 on node vm exited on signal 9 (Killed).\n"
)

// TestBannerFilter: before mpidbg ends the job everything passes; after,
// the launcher's banner goes and everything else passes byte for byte,
// however the stream is cut into writes.
func TestBannerFilter(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"hydra", "out 1\n", hydraBanner + "tail\n", "out 1\ntail\n"},
		{"hydra_before_end", hydraBanner, "x\n", hydraBanner + "x\n"},
		{"mid_line", "partial", " end\n" + hydraBanner, "partial end\n"},
		{"blank_lines_kept", "", "\n\nline\n\n", "\n\nline\n\n"},
		{"other_frame_kept", "", "\n=====================================\n= a table of the program's\n=====================================\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: mine\n",
			"\n=====================================\n= a table of the program's\n=====================================\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: mine\n"},
		{"unclosed_frame", "", "\n=====================================\n= not closed", "\n=====================================\n= not closed"},
		{"ompi", "a\n", dashes + ompiLine + dashes + "b\n", "a\nb\n"},
		{"ompi_other", "", dashes + "a help message\n" + dashes, dashes + "a help message\n" + dashes},
		{"ompi_unframed", "", "c\n" + ompiLine + "d\n", "c\nd\n"},
		{"prterun", "", dashes + "prterun has exited due to process rank 1 with PID 0 on node x calling\n\"abort\".\n" + dashes, ""},
		{"ompi_abort", "", dashes + "MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 1.\n\nNOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n" + dashes +
			"[vm:09237] 1 more process has sent help message help-mpi-api.txt / mpi-abort\n[vm:09237] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\nmine\n", "mine\n"},
		{"ompi_help_lost", "", "[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501\nmine\n", "mine\n"},
		{"ompi_other_error_log", "", "[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Not found in file ../../../orte/mca/plm/base/plm_base_launch_support.c at line 100\n",
			"[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Not found in file ../../../orte/mca/plm/base/plm_base_launch_support.c at line 100\n"},
		{"ompi_help_lost_before_ending", "[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501\n", "",
			"[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501\n"},
		{"ompi_advice_alone", "", "[vm:09237] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\n",
			"[vm:09237] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\n"},
		{"crlf", "", "x\r\n\r\ny\r\n", "x\r\n\r\ny\r\n"},
		{"no_newline_at_end", "", "last words", "last words"},
	}
	for _, tt := range tests {
		for seed := range 20 {
			var out bytes.Buffer
			f := newBannerFilter(&out)
			rng := rand.New(rand.NewSource(int64(seed)))
			feed := func(s string) {
				for len(s) > 0 {
					n := 1 + rng.Intn(len(s))
					if seed == 0 {
						n = len(s)
					}
					f.Write([]byte(s[:n]))
					s = s[n:]
				}
			}
			feed(tt.before)
			f.End()
			feed(tt.after)
			f.Flush()
			if out.String() != tt.want {
				t.Errorf("%s (seed %d): got %q, want %q", tt.name, seed, out.String(), tt.want)
				break
			}
		}
	}
}

// TestTailMessage: mpiexec's own message, short.
func TestTailMessage(t *testing.T) {
	hydra := "[proxy:0:0@vm] HYDU_create_process (utils/launch/launch.c:73): execvp error on file ring (No such file or directory)\n"
	tests := []struct{ name, in, want string }{
		{"hydra", "program noise\n" + hydra + hydra, "[proxy:0:0@vm] HYDU_create_process (utils/launch/launch.c:73): execvp error on file ring (No such file or directory)"},
		{"ompi", "noise\n" + dashes + "mpiexec.openmpi was unable to launch the specified application as it could not access\nor execute an executable:\n\nExecutable: ./x\nNode: vm\n" + dashes + "2 total processes failed to start\n",
			"mpiexec.openmpi was unable to launch the specified application as it could not access\nor execute an executable:\nExecutable: ./x\nNode: vm\n2 total processes failed to start"},
		{"ompi_two", dashes + "Open MPI tried to fork a new process via the \"execve\" system call but\nfailed.\n\n  Local host: vm\n  Error: ./x has a bad interpreter on the first line.\n\nadvice\n" + dashes +
			dashes + "mpiexec.openmpi was unable to start the specified application\n" + dashes +
			"[vm:27372] 1 more process has sent help message help-orte-odls-default.txt / execve error\n" +
			"[vm:27372] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\n",
			"Open MPI tried to fork a new process via the \"execve\" system call but\nfailed.\nLocal host: vm\nError: ./x has a bad interpreter on the first line."},
		{"plain", "one\ntwo", "one\ntwo"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		var tw tailWriter
		tw.Write([]byte(tt.in))
		if got := tw.message(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	var tw tailWriter
	for i := range 1000 {
		tw.Write(bytes.Repeat([]byte{'a' + byte(i%26)}, 2000))
		tw.Write([]byte("\n"))
	}
	if len(tw.lines) > 2*tailLines || len(tw.message()) > maxMessageLines*(tailLineMax+1) {
		t.Errorf("the tail grows: %d lines, message of %d bytes", len(tw.lines), len(tw.message()))
	}
}
