package main

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/golden"
)

// The example struct of README.md, a vector of it, and a subarray.
const (
	sExpr   = "s_type=struct([1,5,7,2,1],[-4,0,47,76,100],[LB,INT,CHAR,DOUBLE,UB])"
	vExpr   = "v_type=vector(2,1,2," + sExpr + ")"
	subExpr = "sub=subarray([4,5],[2,3],[1,1],C,INT)"
)

func runArgs(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestRun checks the commands that succeed (or find that types do not
// match) against golden files of their standard output.
func TestRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"help", []string{"--help"}},
		{"help_command", []string{"help"}},
		{"help_help", []string{"help", "help"}},
		{"help_inspect", []string{"help", "inspect"}},
		{"inspect_help_flag", []string{"inspect", "-h"}},
		{"inspect_struct", []string{"inspect", sExpr}},
		{"inspect_vector", []string{"inspect", vExpr}},
		{"inspect_subarray", []string{"inspect", subExpr}},
		{"inspect_predefined", []string{"inspect", "MPI_DOUBLE_INT"}},
		{"inspect_count", []string{"inspect", "--count", "3", "--limit", "16", sExpr}},
		{"inspect_views", []string{"inspect", "--signature", "--tree", "--expanded", "--typemap", "--limit", "8", vExpr}},
		{"inspect_layout", []string{"inspect", "--layout", "--count", "2", "--limit", "4", vExpr}},
		{"inspect_layout_subarray", []string{"inspect", "--layout", subExpr}},
		{"inspect_signature", []string{"inspect", "--signature", vExpr}},
		{"inspect_path_short", []string{"inspect", "--path", "s_type[2][5]", sExpr}},
		{"inspect_path_long", []string{"inspect", "--count", "2", "--path", "[1]v_type(VECTOR)[1][0].s_type(STRUCT)[3][1](DOUBLE)", vExpr}},
		{"inspect_element_offset", []string{"inspect", "--element", "10", "--offset", "85", "--offset", "30", sExpr}},
		{"inspect_offset_gap", []string{"inspect", "--offset", "30", sExpr}},
		{"inspect_match", []string{"inspect", "--count", "2", "--match", "contiguous(2," + sExpr + ")", sExpr}},
		{"inspect_match_mismatch", []string{"inspect", "--match", "contiguous(14,INT)", sExpr}},
		{"inspect_match_prefix", []string{"inspect", "--match", "contiguous(5,INT)", "--recv-count", "2", "vector(2,1,2,INT)"}},
		{"inspect_match_truncated", []string{"inspect", "--match", "INT", "--send-count", "3", "INT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runArgs(tt.args...)
			want := 0
			if strings.HasSuffix(tt.name, "_mismatch") || strings.HasSuffix(tt.name, "_truncated") {
				want = 1 // --match found that the types do not match
			}
			if code != want || stderr != "" {
				t.Fatalf("run(%q): got exit %d, stderr %q; want %d and none", tt.args, code, stderr, want)
			}
			if strings.Contains(stdout, "\x1b") {
				t.Errorf("output to a buffer holds escape sequences")
			}
			golden.Check(t, stdout)
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, stderr, code := runArgs(args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "mpidbg ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("run(%q): got %q, %q, exit %d; want one line \"mpidbg VERSION\", exit 0", args, stdout, stderr, code)
		}
	}
}

// TestRunErrors checks bad input: exit status 2, nothing on standard
// output, and the message on standard error.
func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // standard error, exactly
	}{
		{"unknown_command", []string{"frobnicate"},
			"mpidbg: unknown command \"frobnicate\"\nRun 'mpidbg --help' for usage.\n"},
		{"flag_before_command", []string{"--count", "2"},
			"mpidbg: unknown flag --count (flags go after the command)\nRun 'mpidbg --help' for usage.\n"},
		{"help_unknown", []string{"help", "frob"},
			"mpidbg: help: unknown command \"frob\"\nRun 'mpidbg --help' for usage.\n"},
		{"help_two", []string{"help", "run", "extra"},
			"mpidbg: help: one command at a time, not \"run extra\"\nRun 'mpidbg --help' for usage.\n"},
		{"version_args", []string{"version", "now"},
			"mpidbg version: takes no arguments, got \"now\"\nRun 'mpidbg version --help' for usage.\n"},
		{"unknown_flag", []string{"inspect", "--bogus", sExpr},
			"mpidbg inspect: unknown flag: --bogus\nRun 'mpidbg inspect --help' for usage.\n"},
		{"unknown_shorthand", []string{"inspect", "-x", sExpr},
			"mpidbg inspect: unknown shorthand flag: 'x' in -x\nRun 'mpidbg inspect --help' for usage.\n"},
		{"bad_flag_value", []string{"inspect", "--count", "two", sExpr},
			"mpidbg inspect: --count \"two\": want an integer\nRun 'mpidbg inspect --help' for usage.\n"},
		{"missing_flag_value", []string{"inspect", sExpr, "--limit"},
			"mpidbg inspect: flag needs an argument: --limit\nRun 'mpidbg inspect --help' for usage.\n"},
		{"no_expression", []string{"inspect"},
			"mpidbg inspect: missing the type expression EXPR\nRun 'mpidbg inspect --help' for usage.\n"},
		{"unquoted_expression", []string{"inspect", "struct([1,", "1],[0,8],[INT,INT])"},
			"mpidbg inspect: want one type expression, got 2 arguments (quote the expression)\nRun 'mpidbg inspect --help' for usage.\n"},
		{"zero_count", []string{"inspect", "--count", "0", sExpr},
			"mpidbg inspect: --count 0: want at least 1\n"},
		{"negative_limit", []string{"inspect", "--limit", "-1", sExpr},
			"mpidbg inspect: --limit -1: want at least 0\n"},
		{"huge_limit", []string{"inspect", "--limit", "100000000", sExpr},
			"mpidbg inspect: --limit 100000000: at most 1000000\n"},
		{"counts_without_match", []string{"inspect", "--recv-count", "2", sExpr},
			"mpidbg inspect: --send-count and --recv-count need --match\n"},
		{"malformed_expression", []string{"inspect", "s_type=struct([1,5],[0,8],[INT,CHR])"},
			"mpidbg inspect: EXPR: unknown type CHR\n  s_type=struct([1,5],[0,8],[INT,CHR])\n                                 ^\n"},
		{"unclosed_expression", []string{"inspect", "vector(2,5,3,INT"},
			"mpidbg inspect: EXPR: expected ')'\n  vector(2,5,3,INT\n                  ^\n"},
		{"constructor_rejects", []string{"inspect", "vector(-1,5,3,INT)"},
			"mpidbg inspect: EXPR: vector: count -1 must be non-negative\n  vector(-1,5,3,INT)\n  ^\n"},
		{"malformed_match", []string{"inspect", "--match", "contiguous(x,INT)", "INT"},
			"mpidbg inspect: --match: expected an integer\n  contiguous(x,INT)\n             ^\n"},
		{"malformed_path", []string{"inspect", "--path", "s_type[2]]", sExpr},
			"mpidbg inspect: --path: unexpected ']'\n  s_type[2]]\n           ^\n"},
		{"path_does_not_fit", []string{"inspect", "--path", "s_type[2][7]", sExpr},
			"mpidbg inspect: --path: s_type[2][7]: index [2 7] is out of range for s_type(STRUCT): path does not fit the type\n"},
		{"path_wrong_type", []string{"inspect", "--path", "s_type[2][5](INT)", sExpr},
			"mpidbg inspect: --path: s_type[2][5](INT): names INT where the element is CHAR: path does not fit the type\n"},
		{"path_marker", []string{"inspect", "--path", "s_type[0][0]", sExpr},
			"mpidbg inspect: --path: s_type[0][0]: names an MPI_LB marker, which holds no data: path does not fit the type\n"},
		{"overflow", []string{"inspect", "vector(4611686018427387904,2,4611686018427387904,DOUBLE)"},
			"mpidbg inspect: EXPR: vector: arguments 7.38e+19 make a type of more than 2^62 bytes or elements\n  vector(4611686018427387904,2,4611686018427387904,DOUBLE)\n  ^\n"},
		{"overflow_count", []string{"inspect", "--count", "4611686018427387904", "INT"},
			"mpidbg inspect: EXPR: 4611686018427387904 instances of INT are too large: the element count, size or extent overflows 64 bits\n"},
		{"element_out_of_range", []string{"inspect", "--element", "14", sExpr},
			"mpidbg inspect: --element: element 14 of 1 x s_type (14 per instance): position out of range\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runArgs(tt.args...)
			if code != 2 {
				t.Errorf("got exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("got standard output %q, want none", stdout)
			}
			if stderr != tt.want {
				t.Errorf("got standard error\n%s\nwant\n%s", stderr, tt.want)
			}
		})
	}
}

func TestNoArguments(t *testing.T) {
	stdout, stderr, code := runArgs()
	if code != 2 || stdout != "" || !strings.Contains(stderr, "Usage:\n  mpidbg COMMAND") {
		t.Errorf("got %q, %q, exit %d; want the usage on standard error, exit 2", stdout, stderr, code)
	}
}

// TestNoColorOnPipes: output that is not a terminal is never coloured,
// and NO_COLOR switches colour off on a terminal too.
func TestWantColor(t *testing.T) {
	var buf bytes.Buffer
	if wantColor(&buf) {
		t.Errorf("wantColor(buffer) = true, want false")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if wantColor(f) {
		t.Errorf("wantColor(regular file) = true, want false")
	}
	t.Setenv(envvar.NoColor, "1")
	if wantColor(os.Stdout) {
		t.Errorf("wantColor(stdout) with NO_COLOR=1 = true, want false")
	}
}

// fullWriter fails every write, as a full disk does; pipeGone as a
// reader that went away does.
type fullWriter struct{ err error }

func (f fullWriter) Write([]byte) (int, error) { return 0, f.err }

// TestStdoutErrors: help and explain whose output could not be written
// end with an error, not a success with nothing printed; a reader that
// went away (mpidbg explain | head) is how such output ends, not an
// error.
func TestStdoutErrors(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help", "explain"}, {"explain"}, {"explain", "leak-type"}, {"run", "--help"}} {
		var stderr bytes.Buffer
		if code := run(args, fullWriter{syscall.ENOSPC}, &stderr); code != 1 || stderr.String() != "mpidbg: cannot write standard output: no space left on device\n" {
			t.Errorf("%v to a full disk: exit %d, stderr %q", args, code, stderr.String())
		}
		stderr.Reset()
		if code := run(args, fullWriter{syscall.EPIPE}, &stderr); code != 0 || stderr.Len() != 0 {
			t.Errorf("%v to a closed pipe: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
