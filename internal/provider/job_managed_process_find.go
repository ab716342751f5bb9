package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// findJobIPStates runs a status query (op_type 2 through operate_process) for
// proc and indexes the answers by host (gse.JobIP.Key). An IP that failed or
// never answered is absent or carries its code; err names those IPs.
func findJobIPStates(ctx context.Context, c *gse.Client, scope gse.JobScope, proc gse.JobProcess) (map[string]gse.JobIPOutcome, error) {
	out, err := c.Job.Status(ctx, scope, proc)
	states := make(map[string]gse.JobIPOutcome, len(proc.IPList))
	if out != nil {
		for _, o := range out.IPs {
			states[o.IP.Key()] = o
		}
	}
	return states, err
}

// jobIPStatus is what ip_status and the data source show of one IP.
type jobIPStatus struct {
	status           string
	managed          types.Bool // null when the answer does not say
	pid              int64
	version          string
	runningInstances int64
	code             int
	msg              string
}

// jobIPStatusOf judges one IP's answer (answered false: none before the
// deadline). Every instance counts: see gse.Status.
func jobIPStatusOf(o gse.JobIPOutcome, answered bool) jobIPStatus {
	st := jobIPStatus{status: "stopped", managed: types.BoolNull(), pid: -1, code: o.ErrorCode, msg: o.ErrorMsg}
	switch {
	case !answered:
		st.code, st.msg = gse.HostPending, "no answer before the deadline"
		st.status = fmt.Sprintf("error (GSE code %d)", st.code)
		return st
	case !o.OK():
		st.status = fmt.Sprintf("error (GSE code %d)", o.ErrorCode)
		return st
	case o.ContentErr != nil:
		st.status = "error (unreadable content)"
		return st
	}
	if h := o.Status.Hosted(); h != nil {
		st.managed = types.BoolValue(*h)
	}
	if o.Status.Running() {
		st.status = "running"
	}
	st.pid, st.version, st.runningInstances = o.Status.PID(), o.Status.Version(), int64(o.Status.RunningInstances())
	return st
}

// stillHosted is the drift judgement of one IP: only an answer that says the
// agent does not host the process counts as drift. A failed, unreadable or
// missing answer, or one without isAuto (the documented shape), is unknown,
// and unknown is not drift.
func stillHosted(o gse.JobIPOutcome, answered bool) bool {
	if !answered || !o.OK() || o.ContentErr != nil {
		return true
	}
	h := o.Status.Hosted()
	return h == nil || *h
}

// jobStatusType is the element type of ip_status.
var jobStatusType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"status": types.StringType, "managed": types.BoolType, "pid": types.Int64Type, "version": types.StringType, "running_instances": types.Int64Type,
}}

func (st jobIPStatus) value() attr.Value {
	return types.ObjectValueMust(jobStatusType.AttrTypes, map[string]attr.Value{
		"status": types.StringValue(st.status), "managed": st.managed, "pid": types.Int64Value(st.pid),
		"version": types.StringValue(st.version), "running_instances": types.Int64Value(st.runningInstances),
	})
}
