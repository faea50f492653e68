package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

var nastyVars = []string{envvar.Nasty, envvar.NastySeed, envvar.NastyOrder, envvar.NastySplit, envvar.NastyFlush,
	envvar.NastyDelay, envvar.NastyHoldTimeout, envvar.NastyTrace, envvar.Race, envvar.RaceSample, envvar.Buffering}

// clearNastyEnv unsets the knobs' variables for the test: they are the
// flags' defaults.
func clearNastyEnv(t *testing.T) {
	t.Helper()
	for _, v := range nastyVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// TestRunNastyFlags: the --nasty knobs and the tracker's reach the ranks
// as variables, from flags or from mpidbg's own environment.
func TestRunNastyFlags(t *testing.T) {
	shim, record := fakeEnv(t)
	self, _ := os.Executable()
	cwd, _ := os.Getwd()
	tests := []struct {
		name string
		env  map[string]string // mpidbg's environment
		args []string
		want map[string]string // variables for the ranks; "" must be absent
	}{
		{"off", nil, nil, map[string]string{envvar.Nasty: "", envvar.NastySeed: "", envvar.Race: "", envvar.RaceSample: ""}},
		{"defaults", nil, []string{"--nasty", "--nasty-seed=42"}, map[string]string{
			envvar.Nasty: "on", envvar.NastySeed: "42", envvar.NastyOrder: "random", envvar.NastySplit: "on",
			envvar.NastyFlush: "on", envvar.NastyDelay: "0", envvar.NastyHoldTimeout: "1s", envvar.NastyTrace: ""}},
		{"every_flag", nil, []string{"--nasty", "--nasty-seed", "18446744073709551615", "--nasty-order=gets-first", "--nasty-split=off",
			"--nasty-flush", "off", "--nasty-delay=50us", "--nasty-hold-timeout=1500ms", "--nasty-trace=trace.txt"}, map[string]string{
			envvar.Nasty: "on", envvar.NastySeed: "18446744073709551615", envvar.NastyOrder: "gets-first", envvar.NastySplit: "off",
			envvar.NastyFlush: "off", envvar.NastyDelay: "50us", envvar.NastyHoldTimeout: "1500ms",
			envvar.NastyTrace: filepath.Join(cwd, "trace.txt")}},
		{"odd_durations", nil, []string{"--nasty", "--nasty-seed=0", "--nasty-delay=1500ns", "--nasty-hold-timeout=0"}, map[string]string{
			envvar.NastySeed: "0", envvar.NastyDelay: "1500ns", envvar.NastyHoldTimeout: "0"}},
		{"from_env", map[string]string{envvar.Nasty: "1", envvar.NastySeed: "7", envvar.NastyOrder: "reverse",
			envvar.NastySplit: "false", envvar.NastyDelay: "2ms"}, nil, map[string]string{
			envvar.Nasty: "on", envvar.NastySeed: "7", envvar.NastyOrder: "reverse", envvar.NastySplit: "off", envvar.NastyDelay: "2ms"}},
		{"flag_beats_env", map[string]string{envvar.Nasty: "on", envvar.NastyOrder: "reverse", envvar.NastySeed: "7"},
			[]string{"--nasty-order=puts-first", "--nasty-seed=8"}, map[string]string{
				envvar.Nasty: "on", envvar.NastyOrder: "puts-first", envvar.NastySeed: "8"}},
		{"flag_turns_off", map[string]string{envvar.Nasty: "on"}, []string{"--nasty=false"}, map[string]string{
			envvar.Nasty: "off", envvar.NastySeed: ""}},
		{"races", nil, []string{"--races=off", "--race-sample=all"}, map[string]string{envvar.Race: "off", envvar.RaceSample: "all"}},
		{"race_sample", nil, []string{"--race-sample", "16"}, map[string]string{envvar.Race: "", envvar.RaceSample: "16"}},
		// as the shim reads it: "off" alone
		{"races_from_env", map[string]string{envvar.Race: "0", envvar.RaceSample: "8"}, nil, map[string]string{envvar.Race: "off", envvar.RaceSample: "8"}},
		{"buffering_from_env", map[string]string{envvar.Buffering: "zero"}, nil, map[string]string{envvar.Buffering: "zero"}},
		{"buffering_flag_beats_env", map[string]string{envvar.Buffering: "zero"}, []string{"--buffering=eager"}, map[string]string{envvar.Buffering: "eager"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearNastyEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			os.Remove(record)
			args := append([]string{"run", "--mpiexec", self, "--shim", shim, "-n", "2"}, tt.args...)
			_, stderr, code := runWith(t, "", append(args, "clean")...)
			if code != 0 {
				t.Fatalf("got exit %d; stderr:\n%s", code, stderr)
			}
			rec := readRecord(t, record)
			for k, want := range tt.want {
				got, ok := rec.Genv[k]
				switch {
				case want == "" && ok:
					t.Errorf("-genv %s %q: want none", k, got)
				case want != "" && got != want:
					t.Errorf("-genv %s: got %q, want %q", k, got, want)
				}
			}
			on := rec.Genv[envvar.Nasty] == "on"
			if line := "mpidbg: --nasty seed " + rec.Genv[envvar.NastySeed] + " (replay: --nasty-seed=" + rec.Genv[envvar.NastySeed] + ")\n"; on != strings.HasPrefix(stderr, line) {
				t.Errorf("nasty %v, but stderr starts\n%s", on, stderr)
			}
		})
	}
}

// TestRunNastySeed: without --nasty-seed, mpidbg picks a seed for the
// job, passes it to every rank and says it.
func TestRunNastySeed(t *testing.T) {
	shim, record := fakeEnv(t)
	self, _ := os.Executable()
	clearNastyEnv(t)
	seeds := map[string]bool{}
	for range 3 {
		os.Remove(record)
		_, stderr, code := runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "2", "--nasty", "clean")
		if code != 0 {
			t.Fatalf("got exit %d; stderr:\n%s", code, stderr)
		}
		seed := readRecord(t, record).Genv[envvar.NastySeed]
		m := regexp.MustCompile(`^mpidbg: --nasty seed (\d+) \(replay: --nasty-seed=(\d+)\)\n`).FindStringSubmatch(stderr)
		if m == nil || m[1] != seed || m[2] != seed {
			t.Fatalf("ranks got seed %q; stderr:\n%s", seed, stderr)
		}
		seeds[seed] = true
	}
	if len(seeds) < 2 {
		t.Errorf("three runs, seeds %v: want new ones", seeds)
	}

	// --quiet: the seed comes with the summary, and only when there is one
	os.Remove(record)
	_, stderr, _ := runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "2", "--nasty", "--nasty-seed=5", "-q", "clean")
	if strings.Contains(stderr, "seed") {
		t.Errorf("--quiet clean run says:\n%s", stderr)
	}
}

func TestRunNastyUsageErrors(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	base := []string{"run", "--mpiexec", self, "--shim", shim, "-n", "2"}
	hint := "\nRun 'mpidbg run --help' for usage.\n"
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"order", nil, []string{"--nasty", "--nasty-order=sideways"}, `--nasty-order "sideways": want random, reverse, puts-first, gets-first or program`},
		{"split", nil, []string{"--nasty", "--nasty-split=yes"}, `--nasty-split "yes": want on or off`},
		{"flush", nil, []string{"--nasty", "--nasty-flush=1"}, `--nasty-flush "1": want on or off`},
		{"delay", nil, []string{"--nasty", "--nasty-delay=-5us"}, `--nasty-delay -5µs: want 0 or more`},
		{"delay_unit", nil, []string{"--nasty", "--nasty-delay=5"}, `--nasty-delay "5": want a duration`},
		{"hold_timeout", nil, []string{"--nasty", "--nasty-hold-timeout=-1s"}, `--nasty-hold-timeout -1s: want 0 (never) or more`},
		{"seed", nil, []string{"--nasty", "--nasty-seed=-1"}, `--nasty-seed "-1": want a uint64`},
		{"seed_word", nil, []string{"--nasty", "--nasty-seed=abc"}, `--nasty-seed "abc": want a uint64`},
		{"without_nasty", nil, []string{"--nasty-order=reverse"}, `--nasty-order: only with --nasty`},
		{"races", nil, []string{"--races=maybe"}, `--races "maybe": want on or off`},
		{"race_sample", nil, []string{"--race-sample=0"}, `--race-sample "0": want a number from 1 up, or all`},
		{"race_sample_word", nil, []string{"--race-sample=some"}, `--race-sample "some": want a number from 1 up, or all`},
		{"env_nasty", map[string]string{envvar.Nasty: "yes"}, nil, `MPIDBG_NASTY "yes": want on or off`},
		{"env_order", map[string]string{envvar.Nasty: "on", envvar.NastyOrder: "up"}, nil, `MPIDBG_NASTY_ORDER "up": want random, reverse, puts-first, gets-first or program`},
		{"env_seed", map[string]string{envvar.Nasty: "on", envvar.NastySeed: "x"}, nil, `MPIDBG_NASTY_SEED "x": want a non-negative integer`},
		{"env_delay", map[string]string{envvar.Nasty: "on", envvar.NastyDelay: "soon"}, nil, `MPIDBG_NASTY_DELAY "soon": want a duration such as 50us, 250ms or 2s`},
		{"env_split", map[string]string{envvar.Nasty: "on", envvar.NastySplit: "maybe"}, nil, `MPIDBG_NASTY_SPLIT "maybe": want on or off`},
		{"env_races", map[string]string{envvar.Race: "maybe"}, nil, `MPIDBG_RACE "maybe": want on or off`},
		{"env_race_sample", map[string]string{envvar.RaceSample: "-5"}, nil, `MPIDBG_RACE_SAMPLE "-5": want a number from 1 up, or all`},
		{"env_buffering", map[string]string{envvar.Buffering: "huge"}, nil, `MPIDBG_BUFFERING="huge": want eager or zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearNastyEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := append(append(slicesClone(base), tt.args...), "clean")
			stdout, stderr, code := runWith(t, "", args...)
			if code != 2 || stdout != "" {
				t.Errorf("got exit %d, stdout %q; want 2 and none", code, stdout)
			}
			if want := "mpidbg run: " + tt.want + hint; stderr != want {
				t.Errorf("got stderr\n%s\nwant\n%s", stderr, want)
			}
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func TestEnvDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {2 * time.Second, "2s"}, {1500 * time.Millisecond, "1500ms"}, {50 * time.Microsecond, "50us"},
		{1500 * time.Nanosecond, "1500ns"}, {time.Minute, "60s"},
	}
	for _, tt := range tests {
		if got := envDuration(tt.d); got != tt.want {
			t.Errorf("envDuration(%v): got %q, want %q", tt.d, got, tt.want)
		}
	}
}
