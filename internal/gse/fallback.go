package gse

import (
	"context"
	"errors"
	"net/http"
)

// CodeComponentNotFound is ESB's answer for an API the installation does not
// have ("component not found"); the gateway answers HTTP 404.
const CodeComponentNotFound = 1306404

// MissingAPI reports whether err is an API the installation lacks, and which.
func MissingAPI(err error) (string, bool) {
	var ae *APIError
	if errors.As(err, &ae) && (ae.Code == CodeComponentNotFound || (ae.Code == 0 && ae.HTTPStatus == http.StatusNotFound)) {
		return ae.API, true
	}
	return "", false
}

// lacksMulti reports a batch submit refused because the installation has no
// operate_proc_multi (it is not among every installation's APIs). From then
// on the batcher sends each operation alone with the single API, and says so
// once in the log.
func (b *batcher) lacksMulti(ctx context.Context, api string, err error) bool {
	missing, ok := MissingAPI(err)
	if !ok || api != b.fam.multi || missing != api {
		return false
	}
	if !b.noMulti.Swap(true) {
		b.c.log.Warn(ctx, "GSE has no "+b.fam.multi+": operations are sent one by one with "+b.fam.single+" from now on", map[string]any{"api": api, "error": err.Error()})
	}
	return true
}

// sendAlone submits each item of t still waiting as a task of its own.
func (b *batcher) sendAlone(t *opTask) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, it := range t.items {
		if it.state == sentItem {
			go b.run(b.newTaskLocked([]*opItem{it}))
		}
	}
}
