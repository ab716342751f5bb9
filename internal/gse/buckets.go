package gse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
)

// An installation counts an app's requests in several buckets, and a refusal
// names the one that is full: ESB counts per app and component (1306429),
// each gateway per app and stage (1642902; 1642901 the stage for every app)
// and per app and resource (1642903, routine on get_proc_status_v2),
// bk-cmdb's apiserver per rule of its LimiterFilter (1199997). So each root
// (ESB, the GSE gateway, the bk-cmdb gateway) has its Limiter, and an API
// refused by its resource's limit gets one of its own, waited for after the
// root's: a busy resource slows its own calls, not every call of the app.
type pacer struct {
	root      *Limiter
	mu        sync.Mutex
	resources map[string]*Limiter // by API, made at its first 1642903
}

// perResource reports a refusal that counts one API, not the stage.
func perResource(code int) bool { return code == codeGatewayResourceLimit }

// wait blocks until a request to api may be sent, or ctx ends.
func (p *pacer) wait(ctx context.Context, api string) error {
	if err := p.root.Wait(ctx); err != nil {
		return err
	}
	if r := p.resource(api, false); r != nil {
		return r.Wait(ctx)
	}
	return nil
}

// resource is api's own limiter: nil until its first refusal, unless create.
// It starts adaptive at the root's rate, cut at once by that refusal.
func (p *pacer) resource(api string, create bool) *Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.resources[api]
	if r == nil && create {
		r = newLimiterAt(p.root.Rate())
		p.resources[api] = r
	}
	return r
}

// throttled records a refusal of a request to api in the bucket its code names.
func (p *pacer) throttled(api string, code int) {
	if perResource(code) {
		p.resource(api, true).Throttled(code)
		return
	}
	p.root.Throttled(code)
}

// served records an answer to api that was not a refusal.
func (p *pacer) served(api string) {
	p.root.Served()
	if r := p.resource(api, false); r != nil {
		r.Served()
	}
}

// throttling is what the root's limiter saw, with the refusals and waiting
// requests of every resource's.
func (p *pacer) throttling() Throttling {
	t := p.root.Throttling()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.resources {
		rt := r.Throttling()
		t.Refused += rt.Refused
		t.Waiting += rt.Waiting
		if rt.LastRefused.After(t.LastRefused) {
			t.LastRefused, t.Code = rt.LastRefused, rt.Code
		}
	}
	return t
}

// pacers holds the pacer of each app on each root in this process.
var pacers = struct {
	sync.Mutex
	m map[string]*pacer
}{m: map[string]*pacer{}}

// sharedPacer is the pacer of cfg's app on root at cfg's rate, made at first
// use. Clients configured alike share it: an app's quota is the
// installation's, whichever provider configuration calls for it.
func sharedPacer(cfg Config, root string) *pacer {
	app := cfg.AppCode
	if cfg.AccessToken != "" {
		sum := sha256.Sum256([]byte(cfg.AccessToken)) // a fingerprint: the key holds no secret
		app = "token:" + hex.EncodeToString(sum[:8])
	}
	key := fmt.Sprintf("%s|%s|%g", root, app, cfg.RateLimit)
	pacers.Lock()
	defer pacers.Unlock()
	p := pacers.m[key]
	if p == nil {
		p = &pacer{root: NewLimiter(cfg.RateLimit).withMemory(newPaceMemory(cfg.PaceDir, root+"|"+app)), resources: map[string]*Limiter{}}
		pacers.m[key] = p
	}
	return p
}

// Throttling reports what the client's pacers saw so far (shared with the
// clients configured alike): the refusals of every root together, the
// latest one's code, and the rate of the root that carried most requests.
func (c *Client) Throttling() Throttling {
	var out Throttling
	busiest := -1
	for _, p := range c.pacers {
		if p == nil {
			continue
		}
		t := p.throttling()
		out.Refused += t.Refused
		out.Waiting += t.Waiting
		out.For = max(out.For, t.For)
		if t.LastRefused.After(out.LastRefused) {
			out.LastRefused, out.Code = t.LastRefused, t.Code
		}
		if t.Sent > busiest {
			busiest, out.Rate, out.Fixed = t.Sent, t.Rate, t.Fixed
		}
		out.Sent += t.Sent
	}
	return out
}
