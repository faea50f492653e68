package report

import (
	"reflect"
	"testing"
	"time"
)

// TestHosts: the ranks are grouped by the host they named when there are
// several; a job on one machine has no hosts.
func TestHosts(t *testing.T) {
	c := NewCollector()
	for rank, host := range []string{"node1", "node2", "node1", "node3"} {
		cn := c.Conn()
		m := hello(rank, 100+rank)
		m.Hello.Host = host
		cn.Handle(m)
		cn.Handle(bye(rank, 0))
		cn.End(nil)
	}
	r := Build(c, Job{Size: 4}, nil)
	want := []HostRanks{{"node1", []int{0, 2}}, {"node2", []int{1}}, {"node3", []int{3}}}
	if !reflect.DeepEqual(r.Outcome.Hosts, want) {
		t.Errorf("hosts:\ngot  %+v\nwant %+v", r.Outcome.Hosts, want)
	}
	if got := r.Outcome.HostsOf([]int{2, 3}); !reflect.DeepEqual(got, []string{"node1", "node3"}) {
		t.Errorf("HostsOf(2,3) = %v", got)
	}

	one := NewCollector()
	for rank := range 2 {
		cn := one.Conn()
		cn.Handle(hello(rank, 100+rank))
		cn.End(nil)
	}
	if h := Build(one, Job{Size: 2}, nil).Outcome.Hosts; h != nil {
		t.Errorf("one host: %+v", h)
	}
}

// TestEndedJobRemote: when mpidbg ends a job across hosts, MPICH's
// mpiexec may give a remote rank the SIGTERM took as "exit code 15"
// (without the exit string that says it was a signal): the rank was
// ended by mpidbg, not an exit of its own. Before the job was ended, exit
// code 15 is the rank's.
func TestEndedJobRemote(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := NewCollector()
	c.Clock = clk.now
	var conns []*Conn
	for rank := range 3 {
		cn := c.Conn()
		cn.Handle(hello(rank, 100+rank))
		conns = append(conns, cn)
	}
	conns[0].End(nil)
	c.ProcessStatus(100, "node1", "exit code 15") // before: its own
	clk.t = clk.t.Add(time.Second)
	c.EndedJob("deadlock")
	clk.t = clk.t.Add(time.Second)
	conns[1].End(nil)
	conns[2].End(nil)
	c.ProcessStatus(101, "node1", "exit code 15")
	r := Build(c, Job{Size: 3}, nil)
	wantDied := []Death{{Ranks: []int{0}, Status: "exit code 15"}, {Ranks: []int{1, 2}, Status: "ended by mpidbg: deadlock"}}
	if !reflect.DeepEqual(r.Died, wantDied) {
		t.Errorf("died:\ngot  %+v\nwant %+v", r.Died, wantDied)
	}
	if len(r.Outcome.Ranks) != 2 || r.Outcome.Ranks[0].How != ExitedBadly ||
		r.Outcome.Ranks[1].How != EndedByTool || !reflect.DeepEqual(r.Outcome.Ranks[1].Ranks, []int{1, 2}) {
		t.Errorf("outcome: %+v", r.Outcome.Ranks)
	}
}
