package rollout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

func TestParseBatchSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]struct {
		n       int
		percent bool
		err     string
	}{
		"1": {n: 1}, "50": {n: 50}, "1%": {n: 1, percent: true}, "25%": {n: 25, percent: true}, "100%": {n: 100, percent: true},
		"0": {err: "at least 1"}, "-3": {err: "at least 1"}, "0%": {err: "1% to 100%"}, "101%": {err: "1% to 100%"},
		"": {err: "host count such as 5"}, "%": {err: "host count such as 5"}, "5 %": {err: "host count such as 5"},
		"+5": {err: "host count such as 5"}, "2.5": {err: "host count such as 5"}, "ten": {err: "host count such as 5"},
	} {
		n, pct, err := parseBatchSize(in)
		switch {
		case want.err != "" && (err == nil || !strings.Contains(err.Error(), want.err)):
			t.Errorf("parseBatchSize(%q) error = %v, want %q", in, err, want.err)
		case want.err == "" && (err != nil || n != want.n || pct != want.percent):
			t.Errorf("parseBatchSize(%q) = %d, %v, %v; want %d, %v", in, n, pct, err, want.n, want.percent)
		}
	}
}

func TestRolloutValidators(t *testing.T) {
	t.Parallel()
	size, pause := path.Root("rollout").AtName("batch_size"), path.Root("rollout").AtName("pause")
	for _, tc := range []struct {
		v    validator.String
		at   path.Path
		in   string
		want string // "" = valid
	}{
		{BatchSizeFormat(), size, "5", ""},
		{BatchSizeFormat(), size, "100%", ""},
		{BatchSizeFormat(), size, "0%", `rollout.batch_size must be a percentage from 1% to 100%, got "0%".`},
		{BatchSizeFormat(), size, "x", `rollout.batch_size must be a host count such as 5 or a percentage such as "25%", got "x".`},
		{NonNegativeDuration(), pause, "0s", ""},
		{NonNegativeDuration(), pause, "1m30s", ""},
		{NonNegativeDuration(), pause, "-1s", `rollout.pause must be a duration of 0s or more, such as "30s" or "2m", got "-1s".`},
	} {
		at := tc.at
		var resp validator.StringResponse
		tc.v.ValidateString(context.Background(), validator.StringRequest{Path: at, ConfigValue: types.StringValue(tc.in)}, &resp)
		got := ""
		if resp.Diagnostics.HasError() {
			got = resp.Diagnostics.Errors()[0].Detail()
		}
		if got != tc.want {
			t.Errorf("%s %q: got %q, want %q", at, tc.in, got, tc.want)
		}
	}
}

func TestRolloutBatches(t *testing.T) {
	t.Parallel()
	hosts := rolloutHosts("agent:b", "1:10.0.0.1", "0:10.0.0.10", "agent:a", "0:10.0.0.2", "0:2001:db8::1", "0:10.0.0.9")
	order := "0:10.0.0.2 0:10.0.0.9 0:10.0.0.10 0:2001:db8::1 1:10.0.0.1 agent:a agent:b"
	for _, tc := range []struct {
		ro   *Settings
		want string // batches separated by " | "
	}{
		{nil, order},
		{&Settings{}, order},
		{&Settings{Size: 3}, "0:10.0.0.2 0:10.0.0.9 0:10.0.0.10 | 0:2001:db8::1 1:10.0.0.1 agent:a | agent:b"},
		{&Settings{Size: 100}, order},
		{&Settings{percent: 25}, "0:10.0.0.2 0:10.0.0.9 | 0:10.0.0.10 0:2001:db8::1 | 1:10.0.0.1 agent:a | agent:b"}, // ceil(1.75) = 2
		{&Settings{percent: 1}, strings.ReplaceAll(order, " ", " | ")},
		{&Settings{percent: 100}, order},
	} {
		var parts []string
		for _, b := range plan(tc.ro.batchLen(len(hosts)), [][]gse.Host{hosts}, HostPlace) {
			var names []string
			for _, h := range b.targets {
				if h.AgentID != "" {
					names = append(names, "agent:"+h.AgentID)
				} else {
					names = append(names, fmt.Sprintf("%d:%s", h.BkCloudID, h.IP))
				}
			}
			parts = append(parts, strings.Join(names, " "))
		}
		if got := strings.Join(parts, " | "); got != tc.want {
			t.Errorf("%+v: batches\n  %s\nwant\n  %s", tc.ro, got, tc.want)
		}
	}
	if got := (&Settings{percent: 25}).batchLen(8); got != 2 {
		t.Errorf(`"25%%" of 8 hosts: batches of %d, want 2`, got)
	}
}

// fakeStep fails the hosts in fail (by IP) with code 117 and records the batches it ran.
type fakeStep struct {
	fail    map[string]bool
	unsent  map[string]bool // hosts the step never sent (HostsError.NotActed)
	whole   error           // returned for every batch when set
	batches [][]string
}

func (f *fakeStep) step() Step[gse.Host] {
	return Step[gse.Host]{What: "restart", Target: gse.Meta{Namespace: "gse", Name: "p"}, Place: HostPlace, Run: func(_ context.Context, batch []gse.Host) error {
		var ips []string
		he := &gse.HostsError{API: "operate_proc_v2", Total: len(batch)}
		for _, h := range batch {
			ips = append(ips, h.IP)
			switch {
			case f.fail[h.IP]:
				he.Failures = append(he.Failures, gse.HostFailure{Host: h, Code: 117, Message: "agent offline"})
			case f.unsent[h.IP]:
				he.NotActed, he.Cause = append(he.NotActed, h), context.DeadlineExceeded
			}
		}
		f.batches = append(f.batches, ips)
		switch {
		case f.whole != nil:
			return f.whole
		case len(he.Failures) > 0 || len(he.NotActed) > 0:
			return he
		}
		return nil
	}}
}

func TestRolloutRun(t *testing.T) {
	t.Parallel()
	hosts := rolloutHosts("0:10.0.0.1", "0:10.0.0.2", "0:10.0.0.3", "0:10.0.0.4", "0:10.0.0.5", "0:10.0.0.6", "0:10.0.0.7", "0:10.0.0.8", "0:10.0.0.9", "0:10.0.0.10")
	for _, tc := range []struct {
		name    string
		ro      *Settings
		fail    []string
		unsent  []string
		whole   error
		batches int
		done    int
		errHas  []string
	}{
		{name: "unset: one call", ro: nil, batches: 1, done: 10},
		{name: "unset: error as it is", ro: nil, fail: []string{"10.0.0.3"}, batches: 1, done: 9, errHas: []string{"operate_proc_v2 failed on 1 of 10 hosts"}},
		{name: "all batches", ro: &Settings{Size: 3}, batches: 4, done: 10},
		{name: "stop at the first failure", ro: &Settings{Size: 3}, fail: []string{"10.0.0.5"}, batches: 2, done: 5,
			errHas: []string{"stopped after batch 2 of 4: 1 of 10 hosts failed, more than max_fail_percentage = 0 allows", "Untouched (4 hosts", "10.0.0.7", "10.0.0.10"}},
		{name: "within max_fail_percentage", ro: &Settings{Size: 3, maxFail: 10}, fail: []string{"10.0.0.5"}, batches: 4, done: 9,
			errHas: []string{"ran all 4 batches and failed on 1 of 10 hosts (within max_fail_percentage = 10)", "10.0.0.5 (bk_cloud_id 0): GSE code 117"}},
		{name: "beyond max_fail_percentage", ro: &Settings{Size: 3, maxFail: 10}, fail: []string{"10.0.0.2", "10.0.0.5"}, batches: 2, done: 4,
			errHas: []string{"stopped after batch 2 of 4: 2 of 10 hosts failed, more than max_fail_percentage = 10 allows"}},
		{name: "hosts never sent are not done", ro: &Settings{Size: 5, maxFail: 100}, unsent: []string{"10.0.0.2"}, batches: 2, done: 9,
			errHas: []string{"failed on 1 of 10 hosts", "10.0.0.2 (bk_cloud_id 0): nothing done there (not sent, or refused)"}},
		{name: "a batch failing as a whole stops", ro: &Settings{Size: 5, maxFail: 100}, whole: errors.New("connection reset"), batches: 1, done: 0,
			errHas: []string{"stopped after batch 1 of 2: batch 1 failed as a whole", "no result of its own: the call failed as a whole", "connection reset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStep{fail: map[string]bool{}, unsent: map[string]bool{}, whole: tc.whole}
			for _, ip := range tc.fail {
				f.fail[ip] = true
			}
			for _, ip := range tc.unsent {
				f.unsent[ip] = true
			}
			done, err := Run(context.Background(), tc.ro, hosts, f.step())
			if len(f.batches) != tc.batches || len(done) != tc.done {
				t.Errorf("ran %d batches %v, done on %d hosts; want %d batches, %d hosts", len(f.batches), f.batches, len(done), tc.batches, tc.done)
			}
			if (err != nil) != (len(tc.errHas) > 0) {
				t.Fatalf("err = %v", err)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error lacks %q:\n%v", s, err)
				}
			}
			var he *gse.HostsError
			if len(tc.fail) > 0 && !errors.As(err, &he) {
				t.Errorf("the batch's *gse.HostsError is not reachable from %T (advice needs it)", err)
			}
		})
	}
}

// Tiers run one after another, each in batches in rollout order (tier 2's
// lower IPs after tier 1): a tier with a failure stops the later tiers, even
// within max_fail_percentage, which counts the hosts of every tier.
func TestRolloutTiers(t *testing.T) {
	t.Parallel()
	tiers := [][]gse.Host{rolloutHosts("0:10.0.0.5", "0:10.0.0.4", "0:10.0.0.3"), rolloutHosts("0:10.0.0.2", "0:10.0.0.1")}
	for _, tc := range []struct {
		name    string
		ro      *Settings
		fail    string
		batches string
		done    int
		errHas  []string
	}{
		{name: "both tiers in order", ro: &Settings{Size: 2}, batches: "[[10.0.0.3 10.0.0.4] [10.0.0.5] [10.0.0.1 10.0.0.2]]", done: 5},
		{name: "unset: a tier per batch", ro: nil, batches: "[[10.0.0.3 10.0.0.4 10.0.0.5] [10.0.0.1 10.0.0.2]]", done: 5},
		{name: "a failed tier stops the later ones", ro: &Settings{Size: 2, maxFail: 50}, fail: "10.0.0.4", batches: "[[10.0.0.3 10.0.0.4] [10.0.0.5]]", done: 2,
			errHas: []string{"rolling restart of gse/p stopped after batch 2 of 3 (tier 1 of 2): 1 of the tier's 3 hosts failed, which stops the later tiers.",
				"Done on 2 of 5 hosts.", "- 10.0.0.4 (bk_cloud_id 0): GSE code 117: agent offline", "Untouched (2 hosts", "- 10.0.0.1 (bk_cloud_id 0)", "- 10.0.0.2 (bk_cloud_id 0)"}},
		{name: "max_fail_percentage over every tier", ro: &Settings{Size: 2, maxFail: 10}, fail: "10.0.0.4", batches: "[[10.0.0.3 10.0.0.4]]", done: 1,
			errHas: []string{"stopped after batch 1 of 3 (tier 1 of 2): 1 of 5 hosts failed, more than max_fail_percentage = 10 allows.", "Untouched (3 hosts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStep{fail: map[string]bool{tc.fail: true}}
			done, err := RunTiers(context.Background(), tc.ro, tiers, f.step())
			if got := fmt.Sprint(f.batches); got != tc.batches || len(done) != tc.done {
				t.Errorf("ran batches %s, done on %d hosts; want %s, %d hosts", got, len(done), tc.batches, tc.done)
			}
			if (err != nil) != (len(tc.errHas) > 0) {
				t.Fatalf("err = %v", err)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error lacks %q:\n%v", s, err)
				}
			}
		})
	}
}

// The pause between batches ends with the context, and so does wait_running.
func TestRolloutPauseAndWaitHonourTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	f := &fakeStep{}
	st := f.step()
	_, err := Run(ctx, &Settings{Size: 1, pause: time.Hour}, rolloutHosts("0:10.0.0.1", "0:10.0.0.2"), st)
	if err == nil || !strings.Contains(err.Error(), "the timeout passed during the pause before batch 2") || len(f.batches) != 1 {
		t.Fatalf("batches %v, err = %v", f.batches, err)
	}

	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	c, err := gse.New(gse.Config{Endpoint: "http://127.0.0.1:1", AppCode: "tf-acc", AppSecret: "acc-secret", Username: "admin"}) // paces, never called
	if err != nil {
		t.Fatal(err)
	}
	st.NotRunning = &RunningCheck[gse.Host]{Client: c, Query: func(_ context.Context, batch []gse.Host) (map[string]string, error) {
		return map[string]string{batch[0].Key(): "status stopped (2), pid -1"}, nil
	}}
	done, err := Run(ctx2, &Settings{Size: 2, WaitRunning: true}, rolloutHosts("0:10.0.0.1", "0:10.0.0.2", "0:10.0.0.3"), st)
	if len(done) != 1 || err == nil || !strings.Contains(err.Error(), "10.0.0.1 (bk_cloud_id 0): not running before the timeout (wait_running): GSE reports status stopped (2), pid -1") ||
		!strings.Contains(err.Error(), "Untouched (1 host") {
		t.Fatalf("done %v, err = %v", done, err)
	}
}

// A deadline that cuts a status read short judges hosts by the last read
// that answered: the host seen running stays done, the other is reported with
// what GSE said, not as "could not be read".
func TestWaitRunningDeadlineDuringARead(t *testing.T) {
	t.Parallel()
	c, err := gse.New(gse.Config{Endpoint: "http://127.0.0.1:1", AppCode: "tf-acc", AppSecret: "acc-secret", Username: "admin",
		PollInitial: time.Millisecond, PollMax: time.Millisecond}) // paces the reads, never called
	if err != nil {
		t.Fatal(err)
	}
	hosts := rolloutHosts("0:10.0.0.1", "0:10.0.0.2")
	reads := 0
	check := &RunningCheck[gse.Host]{Client: c, Query: func(ctx context.Context, batch []gse.Host) (map[string]string, error) {
		if reads++; reads == 1 {
			return map[string]string{batch[0].Key(): "status stopped (2), pid -1"}, nil
		}
		<-ctx.Done() // the second read outlives the deadline
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ok, sick := waitRunning(ctx, hosts, check)
	if len(ok) != 1 || ok[0].Key() != hosts[1].Key() || len(sick) != 1 ||
		sick[0].Reason != "not running before the timeout (wait_running): GSE reports status stopped (2), pid -1" {
		t.Fatalf("ok %v, sick %+v", ok, sick)
	}
}

// The planner on a fleet of 10,000 hosts (issue 6's scale): ordering and splitting.
func BenchmarkRolloutBatches10k(b *testing.B) {
	hosts := make([]gse.Host, 10000)
	for i := range hosts {
		hosts[i] = gse.Host{IP: fmt.Sprintf("10.%d.%d.%d", i%7, (i*31)%256, (i*17)%256), BkCloudID: int64(i % 3)}
	}
	ro := &Settings{percent: 10}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(plan(ro.batchLen(len(hosts)), [][]gse.Host{hosts}, HostPlace)); n != 10 {
			b.Fatalf("%d batches", n)
		}
	}
}

// rolloutHosts builds hosts for the unit tests from "cloud:ip" or "agent:ID".
func rolloutHosts(specs ...string) []gse.Host {
	var out []gse.Host
	for _, s := range specs {
		if id, ok := strings.CutPrefix(s, "agent:"); ok {
			out = append(out, gse.Host{AgentID: id})
			continue
		}
		cloud, ip, _ := strings.Cut(s, ":")
		c, err := strconv.ParseInt(cloud, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("rolloutHosts(%q): %v", s, err))
		}
		out = append(out, gse.Host{IP: ip, BkCloudID: c})
	}
	return out
}
