package cmdb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// A filter field CMDB's objects do not have is no error at CMDB: MongoDB
// matches a missing field as null, so a misspelled field lists fewer hosts
// or processes, and a plan built on them destroys the rest. Every field a
// filter names must be one of CMDB's own (below, from bk-cmdb's model) or a
// custom field search_object_attribute lists for the business, asked once
// per read and only when the filter names a field not among CMDB's own.

// cmdbHostOwnFields are the fields of every CMDB host: the host model's
// attributes (TencentBlueKing/bk-cmdb, commit 111e7ac6,
// src/scene_server/admin_server/upgrader/history/v3.0.8/objAttDescData.go
// HostRow, and the upgraders adding bk_cpu_architecture, bk_cloud_inst_id,
// bk_cloud_vendor, bk_cloud_host_status, bk_agent_id, the IPv6 fields,
// bk_addressing, bk_cloud_host_identifier, bk_cloud_region and
// bk_cloud_zone), and the fields every instance document holds
// (bk_host_id, bk_supplier_account, create_time, last_time).
var cmdbHostOwnFields = []string{
	"bk_host_id", "bk_supplier_account", "create_time", "last_time",
	"bk_host_innerip", "bk_host_outerip", "bk_host_innerip_v6", "bk_host_outerip_v6", "bk_agent_id", "bk_addressing",
	"operator", "bk_bak_operator", "bk_asset_id", "bk_sn", "bk_comment", "bk_service_term", "bk_sla", "bk_cloud_id",
	"bk_state_name", "bk_province_name", "bk_isp_name", "bk_host_name", "bk_os_type", "bk_os_name", "bk_os_version",
	"bk_os_bit", "bk_cpu", "bk_cpu_mhz", "bk_cpu_module", "bk_mem", "bk_disk", "bk_mac", "bk_outer_mac", "import_from",
	"bk_cpu_architecture", "bk_cloud_inst_id", "bk_cloud_vendor", "bk_cloud_host_status", "bk_cloud_host_identifier",
	"bk_cloud_region", "bk_cloud_zone", "bk_state",
}

// cmdbProcessOwnFields are the fields of every CMDB process: metadata.Process
// (bk-cmdb src/common/metadata/process.go).
var cmdbProcessOwnFields = []string{
	"bk_process_id", "bk_biz_id", "bk_supplier_account", "create_time", "last_time", "service_instance_id",
	"bk_process_name", "bk_func_name", "work_path", "pid_file", "user", "start_cmd", "stop_cmd", "restart_cmd",
	"reload_cmd", "face_stop_cmd", "bk_start_check_secs", "timeout", "priority", "proc_num", "auto_start",
	"description", "bk_start_param_regex", "bind_info",
}

// fields are the fields the filter's rules test, in order, each once.
func (f *cmdbFilterModel) fields() []string {
	if f == nil {
		return nil
	}
	var out []string
	add := func(t cmdbTestModel) {
		if name := t.Field.ValueString(); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, r := range f.Rules {
		add(r.cmdbTestModel)
		for _, t := range r.Rules {
			add(t)
		}
	}
	return out
}

// unknownFields are the fields of names that CMDB's objects of fields do
// not have in business biz, neither their own nor custom, and every field
// they have. It asks search_object_attribute only when a name is not among
// their own.
func unknownFields(ctx context.Context, c *gse.Client, biz int64, fields filterFields, names []string) (unknown, known []string, err error) {
	own := fields.own
	for _, n := range names {
		if !slices.Contains(own, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil, own, nil
	}
	custom, err := c.CMDB.ObjectFields(ctx, biz, fields.name())
	if err != nil {
		return nil, nil, err
	}
	known = slices.Concat(own, custom)
	return slices.DeleteFunc(unknown, func(n string) bool { return slices.Contains(custom, n) }), known, nil
}

// checkFilterFields checks that CMDB's objects of fields have every field
// filter f names in business biz (unknownFields), and says what is wrong in
// diags; it reports whether the read may go on.
func checkFilterFields(ctx context.Context, c *gse.Client, biz int64, fields filterFields, f *cmdbFilterModel, diags *diag.Diagnostics) bool {
	obj := fields.name()
	unknown, known, err := unknownFields(ctx, c, biz, fields, f.fields())
	switch {
	case err != nil:
		diags.AddError(fmt.Sprintf("Could not check the %s fields of filter (business %d)", obj, biz),
			strings.TrimSpace(fmt.Sprintf("The filter names a field that is not one of CMDB's own %s fields, and reading the business's custom fields failed: %s\n\n"+
				"Grant the app search_object_attribute (model view permission) in bk-cmdb, or check the field name. %s", obj, err, cmdbAdvice(c, err))))
		return false
	case len(unknown) > 0:
		diags.AddAttributeError(path.Root("filter"), fmt.Sprintf("Unknown %s field in filter", obj), fieldsError(obj, biz, unknown, known))
		return false
	}
	return true
}

// fieldsError says which filter fields CMDB's objects do not have, and the
// nearest field each may have meant.
func fieldsError(object string, biz int64, unknown, known []string) string {
	lines := make([]string, len(unknown))
	for i, n := range unknown {
		lines[i] = fmt.Sprintf("%q is not a field of CMDB %s in business %d", n, plural(object), biz)
		if near := nearestField(n, known); near != "" {
			lines[i] += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	return strings.Join(lines, "\n") + "\n\nCMDB matches a field its " + plural(object) + " do not have as empty, so the filter would select fewer " + plural(object) +
		" without an error, and resources built on them would be destroyed. Fix the field name: CMDB's model page of " + plural(object) +
		" lists every field id, custom fields of the business included (search_object_attribute returns them)."
}

// nearestField is the field of known within two edits of n, or "".
func nearestField(n string, known []string) string {
	best, dist := "", 3
	for _, f := range known {
		if d := editDistance(n, f); d < dist {
			best, dist = f, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, with a transposition
// of neighbours one edit (a typo's usual shape).
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// name is the object's name as CMDB's model knows it: "host", "process".
func (f filterFields) name() string { return strings.ToLower(f.object) }
