package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/status"
)

// liveElsewhereError names the hosts where a gateway create found the
// process already hosted (see plumbing.RegisteredElsewhere).
type liveElsewhereError struct {
	meta  gse.Meta
	hosts []gse.Host
}

func (e *liveElsewhereError) Error() string {
	names := make([]string, len(e.hosts))
	for i, h := range e.hosts {
		names[i] = h.Address()
	}
	return fmt.Sprintf("get_proc_status_v2: process %s is already hosted on %s; nothing was sent. %s.",
		e.meta, strings.Join(names, ", "), plumbing.RegisteredElsewhere)
}

// refuseLive is, through the gateway, the check an ESB register makes with
// 850: it fails when the process is hosted on any of targets. What a destroy
// leaves on GSE 2.0, which has no unregister, is a record unhosted (and
// stopped, or still running when running was unset): it is created over. An
// unhosted owner loses nothing to that: its destroy would only unhost or stop
// what it had, and a hosted or running object is hosted.
func refuseLive(ctx context.Context, c *gse.Client, meta gse.Meta, targets []gse.Host) error {
	if !c.Gateway() {
		return nil // register_proc_info answers 850
	}
	byKey, err := status.Find(ctx, c, meta, targets)
	if err != nil {
		return err
	}
	var live []gse.Host
	for _, h := range targets {
		if e, ok := byKey[h.Key()]; ok && e.IsAuto {
			live = append(live, h)
		}
	}
	if len(live) > 0 {
		return &liveElsewhereError{meta: meta, hosts: live}
	}
	return nil
}
