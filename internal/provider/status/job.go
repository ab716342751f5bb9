package status

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// FindJob runs a status query (op_type 2 through operate_process) for
// proc and indexes the answers by host (gse.JobIP.Key). An IP that failed or
// never answered is absent or carries its code; err names those IPs.
func FindJob(ctx context.Context, c *gse.Client, scope gse.JobScope, proc gse.JobProcess) (map[string]gse.JobIPOutcome, error) {
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
	Status           string
	Managed          types.Bool // null when the answer does not say
	PID              int64
	Version          string
	RunningInstances int64
	Code             int
	Msg              string
}

// JobIPOf judges one IP's answer (answered false: none before the
// deadline). Every instance counts: see gse.Status.
func JobIPOf(o gse.JobIPOutcome, answered bool) jobIPStatus {
	st := jobIPStatus{Status: "stopped", Managed: types.BoolNull(), PID: -1, Code: o.ErrorCode, Msg: o.ErrorMsg}
	switch {
	case !answered:
		st.Code, st.Msg = gse.HostPending, "no answer before the deadline"
		st.Status = fmt.Sprintf("error (GSE code %d)", st.Code)
		return st
	case !o.OK():
		st.Status = fmt.Sprintf("error (GSE code %d)", o.ErrorCode)
		return st
	case o.ContentErr != nil:
		st.Status = "error (unreadable content)"
		return st
	}
	if h := o.Status.Hosted(); h != nil {
		st.Managed = types.BoolValue(*h)
	}
	if o.Status.Running() {
		st.Status = "running"
	}
	st.PID, st.Version, st.RunningInstances = o.Status.PID(), o.Status.Version(), int64(o.Status.RunningInstances())
	return st
}

// StillHosted is the drift judgement of one IP: only an answer that says the
// agent does not host the process counts as drift. A failed, unreadable or
// missing answer, or one without isAuto (the documented shape), is unknown,
// and unknown is not drift.
func StillHosted(o gse.JobIPOutcome, answered bool) bool {
	if !answered || !o.OK() || o.ContentErr != nil {
		return true
	}
	h := o.Status.Hosted()
	return h == nil || *h
}

// JobIPType is the element type of ip_status.
var JobIPType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"status": types.StringType, "managed": types.BoolType, "pid": types.Int64Type, "version": types.StringType, "running_instances": types.Int64Type,
}}

func (st jobIPStatus) Value() attr.Value {
	return types.ObjectValueMust(JobIPType.AttrTypes, map[string]attr.Value{
		"status": types.StringValue(st.Status), "managed": st.Managed, "pid": types.Int64Value(st.PID),
		"version": types.StringValue(st.Version), "running_instances": types.Int64Value(st.RunningInstances),
	})
}
