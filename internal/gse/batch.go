package gse

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Apply-wide batching. Terraform applies up to ten resources at once, and
// production callers (bk-nodeman, GSEKit) put a step's operations into one
// operate_proc_multi task, so Operate gathers the calls that arrive within a
// short window into one task with one poller, and hands each caller only its
// own hosts' results.
//
// Through Terraform, resources reach their operate step more than 20 ms
// apart: its walk starts them one by one as others finish, and each first
// registers; the window (defaultBatchWindow) is long enough to gather most
// of them. A batch is sent at once when it holds maxBatchItems items.
//
// The window adapts for operations announced in advance (ExpectOperate: a
// create announces its operation before it registers the process, a destroy
// as it starts). A batch of announced operations is due after a tenth of the
// last task's duration, between batchLinger and announcedWindow, and is sent
// when it is due and no announced operation is still on its way (or at
// announcedWindow):
//   - a lone destroy waits batchLinger instead of the window, and destroys
//     that Terraform starts together still share a task;
//   - a create has no batchLinger: its register was a round trip to GSE
//     after its announcement, time for the creates Terraform started with
//     it to announce theirs; any operation whose caller made a call after
//     announcing it is treated so (madeCall);
//   - tasks of 2 s gather for 0.2 s: Terraform starts resources one after
//     another as others finish, 20-60 ms apart (its state writes are
//     serial), so a wave of creates reaches the provider over 50-500 ms;
//   - tasks that finish at once gather for batchLinger at most, where any
//     wait would slow every create.
//
// A batch holding an unannounced operation waits the window: nothing tells
// what may still come.

// The window's values are in timing.go (defaultBatchWindow, announcedWindow, batchLinger).
const maxBatchItems = 1000 // items per operate_proc_multi task, as bk-nodeman sends at most

// operateFamily is how one API family runs operate tasks: the calls, the body
// of one item, and the result key of each host, built from what was sent and
// never parsed from a reply. GSE 2.0 through the gateway is another family
// (/api/v2/proc/..., agent_id_list, keys {agent_id}:{namespace}:{name}).
type operateFamily struct {
	single, multi, result string
	body                  func(OperateRequest) any
	key                   func(Host, Meta) string
}

var esbOperate = operateFamily{
	single: "operate_proc_v2", multi: "operate_proc_multi", result: "get_proc_operate_result_v2",
	body: func(r OperateRequest) any { return r.v2() }, key: keyV2,
}

type batcher struct {
	c      *Client
	fam    operateFamily
	window time.Duration

	noMulti atomic.Bool // the installation has no operate_proc_multi (lacksMulti)

	mu       sync.Mutex // guards the fields below, and the state of every item, task and expectation
	open     *gathering
	expected int           // announced operations not arrived nor withdrawn
	lastTask time.Duration // how long the last task that concluded took, from its submit
}

func newBatcher(c *Client, fam operateFamily, window time.Duration) *batcher {
	if window == 0 {
		window = defaultBatchWindow
	}
	return &batcher{c: c, fam: fam, window: window}
}

// gathering is a batch still open for items.
type gathering struct {
	items       []*opItem
	keys        map[string]bool // no two items of a task may share a result key
	timer       *time.Timer     // the window, until deadline
	deadline    time.Time
	due         bool        // a batch of announced operations that waited long enough
	dueTimer    *time.Timer // sets due
	unannounced int         // items whose operation was not announced
	since       time.Time
}

// expectation is an operation announced with ExpectOperate.
type expectation struct {
	b       *batcher
	settled bool        // arrived or withdrawn
	called  atomic.Bool // its caller has made a call since (madeCall)
}

type expectationKey struct{}

// madeCall records, for the operation ctx announces (if any), that its caller
// made a call (a round trip to the installation): the batch it opens needs
// no batchLinger.
func madeCall(ctx context.Context) {
	if e, ok := ctx.Value(expectationKey{}).(*expectation); ok {
		e.called.Store(true)
	}
}

// ExpectOperate announces that the caller will soon call Operate with the
// returned context, such as a create before it registers the process, so that
// batches wait for it and for nothing else (see the batcher). withdraw must be
// called once the caller is done; it matters only when Operate was not called.
func (s *ProcService) ExpectOperate(ctx context.Context) (_ context.Context, withdraw func()) {
	b := s.client.ops
	e := &expectation{b: b}
	b.mu.Lock()
	b.expected++
	b.mu.Unlock()
	return context.WithValue(ctx, expectationKey{}, e), func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.settleLocked(e) {
			b.scheduleLocked()
		}
	}
}

// settleLocked marks e arrived or withdrawn; false when it already was (or is nil).
func (b *batcher) settleLocked(e *expectation) bool {
	if e == nil || e.b != b || e.settled {
		return false
	}
	e.settled = true
	b.expected--
	return true
}

// scheduleLocked sends the open batch when it holds only announced
// operations, is due, and no announced operation is on its way.
func (b *batcher) scheduleLocked() {
	if g := b.open; g != nil && g.due && g.unannounced == 0 && b.expected == 0 {
		b.flushLocked()
	}
}

type itemState int

const (
	gatheringItem itemState = iota
	sentItem                // in a task that is being submitted or polled
	doneItem                // concluded: out and err are set and done is closed
)

// opItem is one caller's operation on at most chunkSize hosts.
type opItem struct {
	ctx   context.Context
	req   OperateRequest
	keys  []string // keys[i] is the result key of req.Hosts[i]
	done  chan struct{}
	state itemState
	task  *opTask
	final map[string]HostResult
	out   *Outcome
	err   error
	began time.Time // when the item came (see Client.expired)
}

// opTask is one submitted task and the items it carries.
type opTask struct {
	api, id string
	items   []*opItem
	live    int // items whose caller still waits
	ctx     context.Context
	cancel  context.CancelFunc
	failing *lastFailure // why its calls are failing, for callers that leave
	started time.Time    // when its submit was answered with a task id
}

// operate splits req into items of at most chunkSize hosts, queues them and
// waits for them, or until ctx ends.
func (b *batcher) operate(ctx context.Context, req OperateRequest) (*Outcome, error) {
	var items []*opItem
	for hosts := range slices.Chunk(req.Hosts, chunkSize) {
		it := &opItem{ctx: ctx, req: req, done: make(chan struct{}), final: map[string]HostResult{}, began: time.Now()}
		it.req.Hosts = hosts
		for _, h := range hosts {
			it.keys = append(it.keys, b.fam.key(h, req.Meta))
		}
		items = append(items, it)
	}
	b.addAll(ctx, items)
	for _, it := range items {
		select {
		case <-it.done:
		case <-ctx.Done():
			b.leave(it)
		}
	}
	return merge(req, items)
}

// addAll puts the items of one operation into the open batch, settles the
// operation's announcement, if any, and decides when to send.
func (b *batcher) addAll(ctx context.Context, items []*opItem) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, _ := ctx.Value(expectationKey{}).(*expectation)
	announced := b.settleLocked(e)
	linger := batchLinger
	if announced && e.called.Load() {
		linger = 0
	}
	for _, it := range items {
		b.addLocked(it, announced, linger)
	}
	b.scheduleLocked()
}

// addLocked puts it into the open batch, first sending that batch when it would
// hold a result key twice (two operations on one process on one host); a
// batch it opens for an announced operation lingers at least linger.
func (b *batcher) addLocked(it *opItem, announced bool, linger time.Duration) {
	if g := b.open; g != nil && slices.ContainsFunc(it.keys, func(k string) bool { return g.keys[k] }) {
		b.flushLocked()
	}
	g := b.open
	if g == nil {
		g = &gathering{keys: map[string]bool{}, since: time.Now()}
		b.open = g
		if b.window > 0 {
			wait := b.window
			if announced {
				wait = max(wait, announcedWindow)
				if due := min(max(b.lastTask/10, linger), announcedWindow); due == 0 {
					g.due = true
				} else {
					g.dueTimer = time.AfterFunc(due, func() {
						b.mu.Lock()
						defer b.mu.Unlock()
						if b.open == g {
							g.due = true
							b.scheduleLocked()
						}
					})
				}
			}
			g.deadline = g.since.Add(wait)
			g.timer = time.AfterFunc(wait, func() {
				b.mu.Lock()
				defer b.mu.Unlock()
				if b.open == g {
					b.flushLocked()
				}
			})
		}
	}
	g.items = append(g.items, it)
	if !announced {
		g.unannounced++
		if dl := g.since.Add(b.window); g.timer != nil && dl.Before(g.deadline) {
			g.deadline = dl
			g.timer.Reset(time.Until(dl))
		}
	}
	for _, k := range it.keys {
		g.keys[k] = true
	}
	if len(g.items) >= maxBatchItems || b.window < 0 {
		b.flushLocked()
	}
}

// flushLocked closes the open batch and submits it as one task.
func (b *batcher) flushLocked() {
	g := b.open
	b.open = nil
	for _, t := range []*time.Timer{g.timer, g.dueTimer} {
		if t != nil {
			t.Stop()
		}
	}
	items := slices.DeleteFunc(g.items, func(it *opItem) bool { return it.state != gatheringItem })
	if len(items) == 0 {
		return
	}
	hosts := 0
	for _, it := range items {
		hosts += len(it.keys)
	}
	t := b.newTaskLocked(items)
	b.c.log.Debug(t.ctx, "GSE operate batch", map[string]any{"items": len(items), "hosts": hosts, "gathered_ms": time.Since(g.since).Milliseconds()})
	go b.run(t)
}

// newTaskLocked makes the task of items. Its calls outlive any one caller:
// they run under the first caller's values but are cancelled only when every
// caller has left.
func (b *batcher) newTaskLocked(items []*opItem) *opTask {
	ctx, cancel := context.WithCancel(context.WithoutCancel(items[0].ctx))
	ctx, lf := withLastFailure(ctx)
	t := &opTask{items: items, live: len(items), ctx: ctx, cancel: cancel, failing: lf}
	for _, it := range items {
		it.state, it.task = sentItem, t
	}
	return t
}

// run submits the task, then polls it until each item is concluded or every
// caller has left, handing each item its hosts' results as they arrive.
func (b *batcher) run(t *opTask) {
	defer t.cancel()
	if len(t.items) > 1 && b.noMulti.Load() {
		b.sendAlone(t)
		return
	}
	submitted, ok := b.submit(t)
	if !ok {
		return
	}
	err := pollUntil(t.ctx, b.c.poll, func(ctx context.Context) (map[string]HostResult, error) {
		return b.c.getResult(ctx, b.fam.result, t.id)
	}, func(data map[string]HostResult) bool { return b.dispatch(t, data, submitted) })
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case err != nil && t.ctx.Err() == nil: // not merely every caller gone
		b.concludeAllLocked(t, err)
	case err != nil:
		b.concludeLeftLocked(t)
	}
}

// concludeLeftLocked concludes the items of t still waiting after their
// callers left, each with why its deadline passed (see leave).
func (b *batcher) concludeLeftLocked(t *opTask) {
	for _, it := range t.items {
		if it.state == sentItem {
			b.concludeLocked(it, b.c.expired(it.ctx, nil, it.began))
		}
	}
}

// request is the API and body of t: the single API for one item, the multi
// API with one body per item otherwise.
func (b *batcher) request(t *opTask) (api string, body any) {
	if len(t.items) == 1 {
		return b.fam.single, b.fam.body(t.items[0].req)
	}
	reqs := make([]any, len(t.items))
	for i, it := range t.items {
		reqs[i] = b.fam.body(it.req)
	}
	return b.fam.multi, struct {
		Reqs []any `json:"proc_operate_req"`
	}{reqs}
}

// submit sends t and records its task id, and says when it was sent; false
// when there is nothing to poll: the submit failed (every item concluded with
// its error) or was refused before starting (each item sent alone).
func (b *batcher) submit(t *opTask) (time.Time, bool) {
	api, body := b.request(t)
	var reply taskReply
	submitted := time.Now()
	info, err := b.c.do(t.ctx, familyGSE, api, body, &reply, false)
	if err != nil && len(t.items) > 1 && (b.lacksMulti(t.ctx, api, err) || refusedUnstarted(err)) {
		// GSE checks a multi task as a whole and refused it before starting
		// anything: send each item alone, so only the bad one fails.
		b.sendAlone(t)
		return submitted, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t.api, t.id = api, reply.TaskID
	switch {
	case err != nil && t.ctx.Err() != nil && !info.mayHaveActed && !info.inFlight:
		for _, it := range t.items {
			if it.state == sentItem {
				b.notActedLocked(it) // every caller left before the submit could act
			}
		}
		return submitted, false
	case err != nil && t.ctx.Err() != nil:
		b.concludeLeftLocked(t)
		return submitted, false
	case err != nil:
		b.concludeAllLocked(t, err)
		return submitted, false
	}
	t.started = time.Now()
	return submitted, true
}

// dispatch hands each item still waiting the final results of its hosts in
// data, reports their progress, and concludes the items that have all of
// theirs; true once no caller waits any more.
func (b *batcher) dispatch(t *opTask, data map[string]HostResult, submitted time.Time) bool {
	var reports []func()
	var finished []*opItem
	b.mu.Lock()
	for _, it := range t.items {
		if it.state != sentItem {
			continue
		}
		for _, i := range settle(data, it.keys, it.final) {
			o, report := it.req.outcome(it.req.Hosts[i]).with(it.final[it.keys[i]]), progressOf(it.ctx)
			reports = append(reports, func() { report(o) })
		}
		if len(it.final) == len(it.keys) {
			finished = append(finished, it)
		}
	}
	b.mu.Unlock()
	// Progress goes out before the items conclude (their callers must not
	// return before it), and outside the lock: a hook may be slow.
	for _, r := range reports {
		r()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(finished) > 0 {
		b.lastTask = time.Since(submitted)
	}
	for _, it := range finished {
		if it.state == sentItem { // not left meanwhile
			b.concludeLocked(it, nil)
		}
	}
	return t.live == 0
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

// refusedUnstarted reports a submit refused before any task could start.
func refusedUnstarted(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (e.Kind() == KindParams || e.HTTPStatus == 404)
}

// leave concludes it for a caller whose context ended: not sent, or with the
// results its task had so far and the rest pending. The last caller of a task
// whose submit has not been answered cancels the submit and waits for it: its
// outcome tells whether GSE can have acted (a request in flight, an
// ambiguous answer) or not (still waiting its turn, refused for the rate
// limit).
func (b *batcher) leave(it *opItem) {
	b.mu.Lock()
	switch {
	case it.state == doneItem:
		b.mu.Unlock()
		return
	case it.state == gatheringItem:
		b.notActedLocked(it)
		b.mu.Unlock()
		return
	case it.task.id == "" && it.task.live == 1:
		it.task.cancel()
		b.mu.Unlock()
		<-it.done
		return
	}
	defer b.mu.Unlock()
	var failing error // why the task's calls were failing, if they were
	if last := it.task.failing.get(); last != nil {
		failing = b.c.interrupted(it.ctx.Err(), last)
	}
	b.concludeLocked(it, b.c.expired(it.ctx, failing, it.began))
}

// notActedLocked concludes it for a caller whose context ended before any
// request GSE can have acted on carried it: nothing was done on its hosts.
func (b *batcher) notActedLocked(it *opItem) {
	it.state = doneItem
	it.err = &HostsError{API: b.fam.single, Target: it.req.Meta, Op: &it.req.Op, Total: len(it.req.Hosts),
		NotActed: it.req.Hosts, Cause: b.c.expired(it.ctx, nil, it.began)}
	close(it.done)
	if it.task != nil {
		releaseLocked(it.task)
	}
}

// releaseLocked counts off one item of t whose caller has its answer; with
// none left waiting, t's calls stop.
func releaseLocked(t *opTask) {
	if t.live--; t.live == 0 {
		t.cancel()
	}
}

func (b *batcher) concludeAllLocked(t *opTask, err error) {
	for _, it := range t.items {
		if it.state == sentItem {
			b.concludeLocked(it, err)
		}
	}
}

// concludeLocked sets it's outcome from its final results; cause is nil when
// every host has one.
func (b *batcher) concludeLocked(it *opItem, cause error) {
	t := it.task
	wants := make([]HostOutcome, len(it.req.Hosts))
	for i, h := range it.req.Hosts {
		wants[i] = it.req.outcome(h)
	}
	api := t.api
	if api == "" {
		api = b.fam.single
	}
	he := &HostsError{API: api, Target: it.req.Meta, Op: &it.req.Op, TaskID: t.id}
	if !t.started.IsZero() && it.ctx.Err() != nil {
		he.Waited = time.Since(t.started)
	}
	it.out, it.err = conclude(it.ctx, cause, he, it.final, it.keys, wants)
	if it.out != nil && t.id == "" {
		it.out = nil // never submitted
	}
	it.state = doneItem
	close(it.done)
	releaseLocked(t)
}

// merge joins the outcomes of a request's items (more than one when it had
// more than chunkSize hosts).
func merge(req OperateRequest, items []*opItem) (*Outcome, error) {
	if len(items) == 1 {
		return items[0].out, items[0].err
	}
	out := &Outcome{}
	all := &HostsError{Target: req.Meta, Op: &req.Op}
	var ids []string
	var other error
	for _, it := range items {
		if it.out != nil {
			out.Hosts = append(out.Hosts, it.out.Hosts...)
			ids = append(ids, it.out.TaskID)
		}
		var he *HostsError
		switch {
		case errors.As(it.err, &he):
			all.API = he.API
			all.absorb(he)
		case it.err != nil && other == nil:
			other = it.err
		}
		all.Total += len(it.keys)
	}
	out.TaskID = strings.Join(ids, ",")
	all.TaskID = out.TaskID
	switch {
	case other != nil:
		return out, other
	case all.namesHosts():
		return out, all
	}
	return out, nil
}
