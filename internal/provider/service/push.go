package service

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
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
// and what JOB reported on their host.
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
	to, byID := jobTargets(j.ins)
	failed := map[string]bool{}
	id, err := r.steps.Client.Job.PushConfigFile(ctx, r.scope, j.cf, to)
	var st *gse.JobStatus
	if err == nil {
		st, err = r.steps.Client.Job.WaitJob(ctx, r.scope, id)
	}
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
			got[jobHostKey(h.HostID, gse.JobIP{IP: h.IP, BkCloudID: h.BkCloudID}, byID)] = h
		}
	}
	for _, in := range j.ins {
		h, ok := got[jobHostKey(in.bkHostID, in.host.JobIP(), byID)]
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

// jobTargets are the hosts of ins as JOB takes them: by bk_host_id when
// every one has it (with host_id_list JOB ignores ip_list), else by IP.
func jobTargets(ins []*instance) (gse.JobTargets, bool) {
	byID := !slices.ContainsFunc(ins, func(in *instance) bool { return in.bkHostID == 0 })
	seen := map[string]bool{}
	var to gse.JobTargets
	for _, in := range ins {
		k := jobHostKey(in.bkHostID, in.host.JobIP(), byID)
		if seen[k] {
			continue
		}
		seen[k] = true
		if byID {
			to.HostIDs = append(to.HostIDs, in.bkHostID)
		} else {
			to.IPs = append(to.IPs, in.host.JobIP())
		}
	}
	return to, byID
}

// jobHostKey is how a job's results name a host.
func jobHostKey(id int64, ip gse.JobIP, byID bool) string {
	if byID {
		return strconv.FormatInt(id, 10)
	}
	return ip.Key()
}
