package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/spf13/pflag"
)

// The forcing mode's flags (--nasty, docs/nasty.md) and the access
// tracker's (--races, --race-sample). Each --nasty knob is also an
// environment variable (internal/envvar): when the flag is not given, the
// variable in mpidbg's own environment is its default, checked the same
// way; the value goes to every rank.

var nastyOrders = []string{"random", "reverse", "puts-first", "gets-first", "program"}

type nastyFlags struct {
	fs          *pflag.FlagSet
	fromVar     map[string]string // flag -> the variable its value came from
	on          bool
	seed        uint64
	order       string
	split       string
	flush       string
	delay       time.Duration
	holdTimeout time.Duration
	trace       string
	races       string
	raceSample  string
}

func (n *nastyFlags) register(fs *pflag.FlagSet) {
	n.fs = fs
	fs.BoolVar(&n.on, "nasty", false, "forcing mode: hold one-sided operations until a synchronisation call needs them, split and reorder them as MPI may (see docs/nasty.md)")
	fs.Uint64Var(&n.seed, "nasty-seed", 0, "seed `N` of --nasty's random order, to replay a run (default: a new one, printed)")
	fs.StringVar(&n.order, "nasty-order", "random", "--nasty's order of issue, `ORDER`: random, reverse, puts-first, gets-first or program")
	fs.StringVar(&n.split, "nasty-split", "on", "--nasty splits multi-element operations into single elements, `MODE`: on or off")
	fs.StringVar(&n.flush, "nasty-flush", "on", "--nasty flushes after each operation it issues in a passive-target epoch, `MODE`: on or off")
	fs.DurationVar(&n.delay, "nasty-delay", 0, "--nasty sleeps this `DURATION` after each operation it issues (e.g. 50us)")
	fs.DurationVar(&n.holdTimeout, "nasty-hold-timeout", time.Second, "--nasty reports rma-unsynchronised for an operation held this `DURATION` while the rank polls (0: never)")
	fs.StringVar(&n.trace, "nasty-trace", "", "--nasty appends the order in which it issues operations to `FILE`")
	fs.StringVar(&n.races, "races", "on", "the access tracker (buffer-race and rma-race checks), `MODE`: on or off")
	fs.StringVar(&n.raceSample, "race-sample", "", "the access tracker watches at least every `N`th operation of a call site (a number, or all)")
}

// fromEnv gives a flag that was not set the value of its variable; bad
// values are errors naming the variable.
func (n *nastyFlags) fromEnv() error {
	n.fromVar = map[string]string{}
	for _, v := range []struct{ flag, env string }{
		{"nasty", envvar.Nasty}, {"nasty-seed", envvar.NastySeed}, {"nasty-order", envvar.NastyOrder},
		{"nasty-split", envvar.NastySplit}, {"nasty-flush", envvar.NastyFlush}, {"nasty-delay", envvar.NastyDelay},
		{"nasty-hold-timeout", envvar.NastyHoldTimeout}, {"nasty-trace", envvar.NastyTrace},
		{"races", envvar.Race}, {"race-sample", envvar.RaceSample},
	} {
		val, ok := os.LookupEnv(v.env)
		if !ok || val == "" || n.fs.Changed(v.flag) {
			continue
		}
		switch v.flag {
		case "nasty", "nasty-split", "nasty-flush", "races":
			on, ok := onOff(val)
			if !ok {
				return fmt.Errorf("%s %q: want on or off", v.env, val)
			}
			val = map[bool]string{true: "on", false: "off"}[on]
			if v.flag == "nasty" {
				val = strconv.FormatBool(on)
			}
		}
		if err := n.fs.Lookup(v.flag).Value.Set(val); err != nil {
			return fmt.Errorf("%s %q: %s", v.env, val, valueWant(v.flag))
		}
		n.fromVar[v.flag] = v.env
	}
	return nil
}

// name is how an error names a knob: its flag, or the variable its value
// came from.
func (n *nastyFlags) name(flag string) string {
	if v := n.fromVar[flag]; v != "" {
		return v
	}
	return "--" + flag
}

// onOff reads the on/off values the shim takes.
func onOff(s string) (on, ok bool) {
	switch s {
	case "on", "1", "true":
		return true, true
	case "off", "0", "false":
		return false, true
	}
	return false, false
}

func valueWant(flag string) string {
	switch flag {
	case "nasty-seed":
		return "want a non-negative integer"
	case "nasty-delay", "nasty-hold-timeout":
		return "want a duration such as 50us, 250ms or 2s"
	}
	return "want a valid value"
}

// check validates the flags (after fromEnv) and says which --nasty flag
// was given without --nasty.
func (n *nastyFlags) check() error {
	switch {
	case !slices.Contains(nastyOrders, n.order):
		return fmt.Errorf("%s %q: want %s or %s", n.name("nasty-order"), n.order, strings.Join(nastyOrders[:len(nastyOrders)-1], ", "), nastyOrders[len(nastyOrders)-1])
	case !isOnOff(n.split):
		return fmt.Errorf("%s %q: want on or off", n.name("nasty-split"), n.split)
	case !isOnOff(n.flush):
		return fmt.Errorf("%s %q: want on or off", n.name("nasty-flush"), n.flush)
	case n.delay < 0:
		return fmt.Errorf("%s %v: want 0 or more", n.name("nasty-delay"), n.delay)
	case n.holdTimeout < 0:
		return fmt.Errorf("%s %v: want 0 (never) or more", n.name("nasty-hold-timeout"), n.holdTimeout)
	case !isOnOff(n.races):
		return fmt.Errorf("%s %q: want on or off", n.name("races"), n.races)
	}
	if n.raceSample != "" && n.raceSample != "all" {
		if v, err := strconv.Atoi(n.raceSample); err != nil || v < 1 {
			return fmt.Errorf("%s %q: want a number from 1 up, or all", n.name("race-sample"), n.raceSample)
		}
	}
	if !n.on {
		for _, f := range []string{"nasty-seed", "nasty-order", "nasty-split", "nasty-flush", "nasty-delay", "nasty-hold-timeout", "nasty-trace"} {
			if n.fs.Changed(f) {
				return fmt.Errorf("--%s: only with --nasty", f)
			}
		}
	}
	return nil
}

func isOnOff(s string) bool { return s == "on" || s == "off" }

// vars returns the variables for the ranks. With --nasty and no seed, it
// picks one, once for the whole job.
func (n *nastyFlags) vars() ([]launch.Var, error) {
	var env []launch.Var
	if n.fs.Changed("races") || n.fromVar["races"] != "" {
		// on or off, whichever spelling the variable had
		env = append(env, launch.Var{Name: envvar.Race, Value: n.races})
	}
	if n.raceSample != "" {
		env = append(env, launch.Var{Name: envvar.RaceSample, Value: n.raceSample})
	}
	if !n.on {
		if _, set := os.LookupEnv(envvar.Nasty); set {
			env = append(env, launch.Var{Name: envvar.Nasty, Value: "off"}) // the ranks inherit mpidbg's environment
		}
		return env, nil
	}
	if !n.fs.Changed("nasty-seed") && n.fromVar["nasty-seed"] == "" {
		n.seed = rand.Uint64N(1_000_000_000_000) // short enough to type
		n.fromVar["nasty-seed"] = "chosen"
	}
	env = append(env,
		launch.Var{Name: envvar.Nasty, Value: "on"},
		launch.Var{Name: envvar.NastySeed, Value: strconv.FormatUint(n.seed, 10)},
		launch.Var{Name: envvar.NastyOrder, Value: n.order},
		launch.Var{Name: envvar.NastySplit, Value: n.split},
		launch.Var{Name: envvar.NastyFlush, Value: n.flush},
		launch.Var{Name: envvar.NastyDelay, Value: envDuration(n.delay)},
		launch.Var{Name: envvar.NastyHoldTimeout, Value: envDuration(n.holdTimeout)},
	)
	if n.trace != "" {
		abs, err := filepath.Abs(n.trace) // the ranks may start elsewhere
		if err != nil {
			return nil, fmt.Errorf("--nasty-trace %s: %v", n.trace, err)
		}
		env = append(env, launch.Var{Name: envvar.NastyTrace, Value: abs})
	}
	return env, nil
}

// seedLine is what mpidbg says about the seed, so that a run can be
// replayed.
func (n *nastyFlags) seedLine() string {
	return fmt.Sprintf("mpidbg: --nasty seed %d (replay: --nasty-seed=%d)", n.seed, n.seed)
}

// envDuration writes d in the coarsest unit that holds it exactly, in
// the form the shim reads ("0", "50us", "2s").
func envDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d%time.Microsecond == 0:
		return fmt.Sprintf("%dus", d/time.Microsecond)
	}
	return fmt.Sprintf("%dns", int64(d))
}
