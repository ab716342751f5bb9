package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/health"
)

// pushJob is one push of a batch: files at one path, under one account, to
// the hosts of the instances that need them (of, by instance key).
type pushJob struct {
	files []gse.ConfigFile
	ins   []*instance
	of    map[string][]*file
}

// add makes the job push f for in.
func (j *pushJob) add(in *instance, f *file) {
	if len(j.of[in.key]) == 0 {
		j.ins = append(j.ins, in)
	}
	j.of[in.key] = append(j.of[in.key], f)
}

// push writes the batch's changed files before its operations, all at once,
// each to the hosts of the batch's instances that need it and no other. A
// file alike on several hosts (path, name, account and content) is one JOB
// push_config_file job to them all; the files only one host gets (an
// instance's own, rendered from its host and number) ride in one job per
// host, path and account (JOB's file_list takes several files to one
// directory): a host with two nginx instances gets nginx_1.conf and
// nginx_2.conf in one push, not two. It returns the instances whose every
// file arrived; the others fail, named with the files and what JOB reported
// on their host. JOB takes the hosts as it takes those of the health checks
// (health.Addressing).
func (r *runner) push(ctx context.Context, batch []*instance) []*instance {
	type fileOf struct {
		in *instance
		f  *file
	}
	alike := map[string][]fileOf{}
	var order []string
	for _, in := range batch {
		for _, f := range in.files {
			k := f.cf.Path + "\x00" + f.cf.Name + "\x00" + f.cf.Account + "\x00" + f.hash
			if alike[k] == nil {
				order = append(order, k)
			}
			alike[k] = append(alike[k], fileOf{in, f})
		}
	}
	jobs := map[string]*pushJob{}
	for _, k := range order {
		group := alike[k]
		jk := k
		if !slices.ContainsFunc(group, func(o fileOf) bool { return o.in.host != group[0].in.host }) {
			jk = "host\x00" + group[0].in.host.Address() + "\x00" + group[0].f.cf.Path + "\x00" + group[0].f.cf.Account
		}
		j := jobs[jk]
		if j == nil {
			j = &pushJob{of: map[string][]*file{}}
			jobs[jk] = j
		}
		j.files = append(j.files, group[0].f.cf)
		for _, o := range group {
			j.add(o.in, o.f)
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
		if id, err = r.steps.Client.Job.PushConfigFiles(ctx, r.scope, j.files, health.JobTargets(hosts, byID)); err == nil {
			st, err = r.steps.Client.Job.WaitJob(ctx, r.scope, id)
		}
	}
	failed := map[string]bool{}
	if err != nil {
		for _, in := range j.ins {
			failed[in.key] = true
			r.fail([]*instance{in}, apiCode(err), fmt.Sprintf("%s: push_config_file: %v", named(j.of[in.key]), err))
		}
		return failed
	}
	if st.Succeeded() {
		return failed // on every host (WaitJob)
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
		r.fail([]*instance{in}, int64(h.Status), fmt.Sprintf("%s not written on %s: %s", named(j.of[in.key]), in.host, why))
	}
	return failed
}

// named names files as config_files elements with their paths:
// config_files["a"] (/etc/a.conf), config_files["b"] (/etc/b.conf).
func named(fs []*file) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("config_files[%q] (%s/%s)", f.key, f.cf.Path, f.cf.Name)
	}
	return strings.Join(out, ", ")
}
