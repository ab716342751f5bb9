package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// pushJob is one push of a batch: a file's path, name, account and
// content, to the hosts of the instances that need it, each for a file of
// config_files (keys, by instance key).
type pushJob struct {
	cf   gse.ConfigFile
	ins  []*instance
	keys map[string]string
}

// push writes the batch's changed files before its operations: one JOB
// push_config_file job per distinct file (path, name, account and content:
// files of several instances alike share one), to the hosts of the batch's
// instances that need it and no other, all at once. It returns the
// instances whose every file arrived; the others fail, named with the file
// and what JOB reported on their host. JOB takes the hosts as it takes
// those of the health checks (health.Addressing).
func (r *runner) push(ctx context.Context, batch []*instance) []*instance {
	jobs := map[string]*pushJob{}
	for _, in := range batch {
		for _, f := range in.files {
			k := f.cf.Path + "\x00" + f.cf.Name + "\x00" + f.cf.Account + "\x00" + f.hash
			if jobs[k] == nil {
				jobs[k] = &pushJob{cf: f.cf, keys: map[string]string{}}
			}
			jobs[k].ins = append(jobs[k].ins, in)
			jobs[k].keys[in.key] = f.key
		}
	}
	if len(jobs) == 0 {
		return batch
	}
	var mu sync.Mutex
	bad := map[string]bool{}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			failed := r.pushOne(ctx, j)
			mu.Lock()
			maps.Copy(bad, failed)
			mu.Unlock()
		})
	}
	wg.Wait()
	return slices.DeleteFunc(slices.Clone(batch), func(in *instance) bool { return bad[in.key] })
}

// pushOne runs one push and fails the instances on hosts it did not reach.
func (r *runner) pushOne(ctx context.Context, j *pushJob) map[string]bool {
	targets := make([]health.Target, len(j.ins))
	for i, in := range j.ins {
		targets[i] = in.target()
	}
	byID, err := health.Addressing(targets, "push_config_file")
	var st *gse.JobStatus
	if err == nil {
		hosts := map[string]health.Target{}
		for _, t := range targets {
			hosts[health.HostKey(t, byID)] = t
		}
		var id int64
		if id, err = r.steps.Client.Job.PushConfigFile(ctx, r.scope, j.cf, health.JobTargets(hosts, byID)); err == nil {
			st, err = r.steps.Client.Job.WaitJob(ctx, r.scope, id)
		}
	}
	failed := map[string]bool{}
	if err != nil {
		for _, in := range j.ins {
			failed[in.key] = true
			r.fail([]*instance{in}, apiCode(err), fmt.Sprintf("config_files[%q]: push_config_file: %v", j.keys[in.key], err))
		}
		return failed
	}
	got := map[string]gse.JobHostTask{}
	for _, step := range st.Steps {
		for _, h := range step.Hosts {
			got[health.ResultKey(h, byID)] = h
		}
	}
	for i, in := range j.ins {
		h, ok := got[health.HostKey(targets[i], byID)]
		if ok && h.OK() {
			continue
		}
		failed[in.key] = true
		why := "JOB reported no result for the host"
		if ok {
			why = fmt.Sprintf("JOB host status %d%s", h.Status, gse.JobHostAdvice(h.Status))
		}
		r.fail([]*instance{in}, int64(h.Status), fmt.Sprintf("config_files[%q] (%s/%s) not written on %s: %s", j.keys[in.key], j.cf.Path, j.cf.Name, in.host, why))
	}
	return failed
}
