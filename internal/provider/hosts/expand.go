package hosts

import (
	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// A hosts list crosses from the model to the client here, once per list:
// as client hosts alone (Expand), or paired with the models where a family
// needs both (Pairs): the model keys host_status, the client host is what
// GSE and JOB are asked about.

// Expand is the hosts of l as the client addresses them (Model.Expand), in order.
func (l List) Expand() []gse.Host { return plumbing.Each(l.hosts, Model.Expand) }

// Pair is one host of a hosts list in both forms.
type Pair struct {
	model Model
	host  gse.Host
}

// Pairs are the hosts of l, each with its client host, in order.
func (l List) Pairs() []Pair {
	out := make([]Pair, len(l.hosts))
	for i, h := range l.hosts {
		out[i] = Pair{model: h, host: h.Expand()}
	}
	return out
}

// Model is the host as the configuration writes it, as the state keeps it.
func (p Pair) Model() Model { return p.model }

// Host is the host as the client addresses it (Model.Expand).
func (p Pair) Host() gse.Host { return p.host }

// StatusKey is the host's key in host_status (Model.StatusKey).
func (p Pair) StatusKey() string { return p.model.StatusKey() }
