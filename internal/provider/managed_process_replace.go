package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// liveElsewhereError names the hosts where a gateway create found the
// process already hosted or running (see registeredElsewhere).
type liveElsewhereError struct {
	meta  gse.Meta
	hosts []gse.Host
}

func (e *liveElsewhereError) Error() string {
	names := make([]string, len(e.hosts))
	for i, h := range e.hosts {
		names[i] = h.Address()
	}
	return fmt.Sprintf("get_proc_status_v2: process %s is already hosted or running on %s; nothing was sent. %s.",
		e.meta, strings.Join(names, ", "), registeredElsewhere)
}

// refuseLive is, through the gateway, the check an ESB register makes with
// 850: it fails when the process is hosted or running on any of hosts. A
// record stopped and unhosted (what a destroy leaves on GSE 2.0, which has
// no unregister) is not in use, and is created over.
func refuseLive(ctx context.Context, c *gse.Client, meta gse.Meta, hosts []gse.Host) error {
	if !c.Gateway() {
		return nil // register_proc_info answers 850
	}
	byKey, err := findProcessHosts(ctx, c, meta, hosts)
	if err != nil {
		return err
	}
	var live []gse.Host
	for _, h := range hosts {
		if e, ok := byKey[h.Key()]; ok && (e.IsAuto || e.Status == gse.StateRunning) {
			live = append(live, h)
		}
	}
	if len(live) > 0 {
		return &liveElsewhereError{meta: meta, hosts: live}
	}
	return nil
}
