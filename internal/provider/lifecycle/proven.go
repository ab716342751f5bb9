package lifecycle

import (
	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// Proven is what an apply's tasks proved on the hosts where they succeeded:
// the run state and hosting a success proves (gse.OpInfo.Running, Hosted).
// A family records it in host_status (status.Proved with Of).
type Proven struct {
	touched map[string]status.Fact // by gse.Host.Key
}

// note records what op's success proved on hosts; a start or restart of a
// one-shot process proves no run state (it may have run and exited).
func (p *Proven) note(hosts []gse.Host, op gse.OpType, oneShot bool) {
	if p.touched == nil {
		p.touched = map[string]status.Fact{}
	}
	proves := op.Info()
	for _, h := range hosts {
		facts := p.touched[h.Key()]
		switch {
		case oneShot && proves.Starts:
			facts.Running = nil // it may have run and exited already
		case proves.Running != nil:
			facts.Running = proves.Running
		}
		if proves.Hosted != nil {
			facts.Managed = proves.Hosted
		}
		p.touched[h.Key()] = facts
	}
}

// Of is what the apply proved on h; touched is false when no task of it
// succeeded there.
func (p *Proven) Of(h gse.Host) (facts status.Fact, touched bool) {
	facts, touched = p.touched[h.Key()]
	return facts, touched
}
