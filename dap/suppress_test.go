package dap

import (
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/run/report"
)

func TestSuppressCovers(t *testing.T) {
	rules, err := report.ParseRules("s", strings.NewReader("message-race master.c:40\ntype-mismatch function=halo_*\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs := suppressRules(rules)
	race := &findingInfo{id: "message-race", category: "message-race", where: "/src/app/master.c:40 in collect", file: "/src/app/master.c", line: 40}
	halo := &findingInfo{id: "type-mismatch", category: "type-mismatch", where: "halo.c:7 in halo_exchange", file: "halo.c", line: 7}
	other := &findingInfo{id: "message-race", category: "message-race", where: "master.c:41 in collect", file: "master.c", line: 41}
	for _, tc := range []struct {
		f    *findingInfo
		want bool
	}{{race, true}, {halo, true}, {other, false}, {nil, false}} {
		if got := rs.covers(tc.f); got != tc.want {
			t.Errorf("covers(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
	if suppressRules(nil).covers(race) {
		t.Errorf("no rules cover a finding")
	}
}
