package rollout

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// Model is the rollout attribute of gse_managed_process,
// gse_process_operation (resource and action) and gse_job_managed_process.
type Model struct {
	BatchSize         types.String `tfsdk:"batch_size"`
	MaxFailPercentage types.Int64  `tfsdk:"max_fail_percentage"`
	WaitRunning       types.Bool   `tfsdk:"wait_running"`
	Pause             types.String `tfsdk:"pause"`
}

// Attribute is the schema of rollout; steps says which steps of the
// resource it governs and what a stopped rollout leaves behind.
func Attribute(steps string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Rolls disruptive steps out in batches of hosts instead of on every host at once. " + steps + " " +
			"Hosts go in a stable order: by `bk_cloud_id`, then by IP (hosts given only by agent id after them, by agent id), so a run after a " +
			"failure meets the hosts in the same order. One batch runs at a time (one task each, which the provider may share with other " +
			"resources' calls); after it, with `wait_running`, the provider waits until GSE reports the batch running, then pauses. " +
			"Once more than `max_fail_percentage` of the hosts failed, no further batch starts: the error names each failed host with its GSE " +
			"code or what GSE reported, and the hosts left untouched. Each batch is logged at INFO (`batch i/n`, hosts, result). " +
			"Unset: every host in one batch, as without rolling.",
		Attributes: map[string]schema.Attribute{
			"batch_size": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Hosts per batch: a count from `1` to the number of hosts (a number such as `50` is accepted too), or a percentage of " +
					"the hosts from `\"1%\"` to `\"100%\"`, rounded up to whole hosts (`\"25%\"` of 8 hosts is batches of 2). Unset: all hosts in one batch.",
				Validators: []validator.String{BatchSizeFormat()},
			},
			"max_fail_percentage": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Share of all the step's hosts, `0` to `100`, that may fail before no further batch starts. Defaults to `0`: " +
					"the first failed host stops the rollout after its batch. Failures within the share still fail the apply once every batch ran.",
				Validators: []validator.Int64{plumbing.ZeroTo(100)},
			},
			"wait_running": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "After each batch of an operation that leaves the process running (start, restart, reload; for " +
					"`gse_job_managed_process`, registering hosting), wait until GSE reports every host of the batch running " +
					"(`status` 1 with a pid above 0) before the next batch. It polls the status until the resource's timeout; hosts still not running " +
					"then fail, named with what GSE reported. A GSE process whose spec makes it a one-shot (`monitor_policy.auto_type = 2`) exits by design and is not waited for. Defaults to `false`.",
			},
			"pause": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Pause between batches, a Go duration such as `\"30s\"` or `\"2m\"` (`\"0s\"` for none, the default). " +
					"It counts against the resource's timeout.",
				Validators: []validator.String{NonNegativeDuration()},
			},
		},
	}
}

// Settings is a validated rollout: how to split targets and when to stop.
// A nil *Settings runs every target in one batch.
type Settings struct {
	Size        int // targets per batch; 0 with percent set
	percent     int // share of the targets per batch, 1..100
	maxFail     int64
	WaitRunning bool
	pause       time.Duration
}

// Expand is the rollout the model asks for; nil stays nil. The values passed
// plan-time validation.
func (m *Model) Expand() *Settings {
	if m == nil {
		return nil
	}
	r := &Settings{maxFail: m.MaxFailPercentage.ValueInt64(), WaitRunning: m.WaitRunning.ValueBool()}
	if !m.BatchSize.IsNull() && !m.BatchSize.IsUnknown() {
		n, pct, _ := parseBatchSize(m.BatchSize.ValueString())
		if pct {
			r.percent = n
		} else {
			r.Size = n
		}
	}
	if !m.Pause.IsNull() && !m.Pause.IsUnknown() {
		r.pause, _ = time.ParseDuration(m.Pause.ValueString())
	}
	return r
}

// parseBatchSize reads "5" (hosts) or "25%" (a share of the hosts).
func parseBatchSize(s string) (n int, percent bool, err error) {
	digits, percent := strings.CutSuffix(s, "%")
	n, err = strconv.Atoi(digits)
	switch {
	case err != nil || strings.TrimSpace(digits) != digits || strings.HasPrefix(digits, "+"):
		return 0, false, fmt.Errorf("must be a host count such as 5 or a percentage such as \"25%%\"")
	case percent && (n < 1 || n > 100):
		return 0, false, fmt.Errorf("must be a percentage from 1%% to 100%%")
	case !percent && n < 1:
		return 0, false, fmt.Errorf("must be a host count of at least 1, or a percentage from 1%% to 100%%")
	}
	return n, percent, nil
}

// BatchSizeFormat accepts a batch_size: a host count or a percentage.
func BatchSizeFormat() validator.String {
	return plumbing.StringCheck{Desc: "a host count from 1 to the number of hosts, or a percentage from 1% to 100%", Check: func(s string) error {
		_, _, err := parseBatchSize(s)
		return err
	}}
}

// NonNegativeDuration accepts a Go duration of 0s or more, and says which
// attribute is wrong when it is not (timetypes.GoDuration's own check did not).
func NonNegativeDuration() validator.String {
	return plumbing.StringCheck{Desc: "a duration of 0s or more, such as 30s", Check: func(s string) error {
		if d, err := time.ParseDuration(s); err != nil || d < 0 {
			return fmt.Errorf("must be a duration of 0s or more, such as \"30s\" or \"2m\"")
		}
		return nil
	}}
}

// ValidateSize is the plan-time check that needs the hosts: a count
// batch_size may not exceed them. hosts < 0 means not known yet.
func ValidateSize(ctx context.Context, config tfsdk.Config, at path.Path, hosts int, diags *diag.Diagnostics) {
	var size types.String
	diags.Append(config.GetAttribute(ctx, at.AtName("batch_size"), &size)...)
	if hosts <= 0 || size.IsNull() || size.IsUnknown() {
		return
	}
	if n, pct, err := parseBatchSize(size.ValueString()); err == nil && !pct && n > hosts {
		diags.AddAttributeError(at.AtName("batch_size"), "Invalid "+at.AtName("batch_size").String(),
			fmt.Sprintf("%s must be a host count from 1 to %d (the number of hosts) or a percentage from 1%% to 100%%, got %q.",
				at.AtName("batch_size"), hosts, size.ValueString()))
	}
}

// ElementCount is how many elements the list or set at p holds in config, or
// -1 while it is unknown or holds unknown elements.
func ElementCount(ctx context.Context, config tfsdk.Config, p path.Path) int {
	var v attr.Value
	if d := config.GetAttribute(ctx, p, &v); d.HasError() || v == nil || v.IsNull() || v.IsUnknown() {
		return -1
	}
	l, ok := v.(plumbing.ElementsValue)
	if !ok {
		return -1
	}
	els := l.Elements()
	for _, el := range els {
		if el.IsUnknown() {
			return -1
		}
	}
	return len(els)
}

// BatchLen is the number of targets per batch of total targets for a
// batch_size that passed BatchSizeFormat; null or unknown is all of them.
func BatchLen(batchSize types.String, total int) int {
	return (&Model{BatchSize: batchSize}).Expand().batchLen(total)
}

// batchLen is the number of targets per batch for total targets.
func (r *Settings) batchLen(total int) int {
	switch {
	case r == nil || (r.Size == 0 && r.percent == 0):
		return total
	case r.percent > 0:
		return max(1, (r.percent*total+99)/100)
	}
	return min(r.Size, total)
}

// DistinctIPs counts the distinct ip_list entries of JOB process_infos, or
// -1 while any is unknown.
func DistinctIPs(procs types.List) int {
	if procs.IsUnknown() {
		return -1
	}
	seen := map[string]bool{}
	for _, el := range procs.Elements() {
		obj, ok := el.(types.Object)
		if !ok || obj.IsUnknown() {
			return -1
		}
		var ips []attr.Value
		if obj.Attributes()["ip_list"].IsUnknown() {
			return -1
		}
		switch l := obj.Attributes()["ip_list"].(type) {
		case types.Set:
			ips = l.Elements()
		case types.List:
			ips = l.Elements()
		}
		for _, ip := range ips {
			if ip.IsUnknown() {
				return -1
			}
			seen[ip.String()] = true
		}
	}
	return len(seen)
}
