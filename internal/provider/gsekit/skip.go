package gsekit

import (
	"fmt"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Skipped is an instance left out, why, and what kind of cause it is.
type Skipped struct {
	Row    *gse.ProcessRow
	N      int64
	Kind   SkipKind
	Reason string
}

// SkipKind is what a skipped instance is waiting for, which says what a user
// can do about it.
type SkipKind int

const (
	// SkipHost: its host has no address this mode can use, or is not found.
	SkipHost SkipKind = iota
	// SkipRender: a path or command needs Mako or GSEKit's database.
	SkipRender
	// SkipField: a field GSEKit requires is empty, a set is missing, or a
	// value is one gse_managed_process refuses.
	SkipField
	// SkipDuplicate: the alias runs twice on one host.
	SkipDuplicate
)

// Refuse is what the resource the groups feed would refuse of a process
// named name with spec: the attribute, its value and the rule it breaks (""
// as attr when it takes them). gse_cmdb_processes passes
// gse_managed_process's own check (spec.Refuse), so that no group fails its
// plan.
type Refuse func(name string, s *gse.Spec) (attr, value, rule string)

// cmdbSources name the CMDB field each attribute Refuse checks is made
// from, and its value there.
var cmdbSources = map[string]func(p gse.CMDBProcess) (string, string){
	"meta.name":                func(p gse.CMDBProcess) (string, string) { return "bk_process_name", p.Name },
	"spec.identity.proc_name":  func(p gse.CMDBProcess) (string, string) { return "bk_func_name", p.FuncName },
	"spec.identity.setup_path": func(p gse.CMDBProcess) (string, string) { return "work_path", deref(p.WorkPath) },
	"spec.identity.pid_path":   func(p gse.CMDBProcess) (string, string) { return "pid_file", deref(p.PidFile) },
	"spec.identity.user":       func(p gse.CMDBProcess) (string, string) { return "user", deref(p.User) },
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// refused says why refuse turns down the instance (name, s) of p ("" when
// it does not), naming the CMDB field it comes from.
func refused(refuse Refuse, p gse.CMDBProcess, name string, s *gse.Spec) string {
	attr, value, rule := refuse(name, s)
	if attr == "" {
		return ""
	}
	reason := fmt.Sprintf("gse_managed_process refuses %s %q: it %s", attr, value, rule)
	if src := cmdbSources[attr]; src != nil {
		field, raw := src(p)
		reason = fmt.Sprintf("%s %q: %s", field, raw, reason)
	}
	return reason
}

// uniqKey is GSEKit's key of a process instance, which it refuses to hold
// twice (gsekit apps/gsekit/process/models.py ProcessInst
// LOCAL_INST_ID_UNIQ_KEY_TMPL and unique_together; raised as
// DuplicateProcessInstException by ProcessHandler.create_process_inst in
// apps/gsekit/process/handlers/process.py): the host's bk_host_innerip (else
// its bk_host_innerip_v6) and cloud, the alias and local_inst_id. A host
// without an address has no key: it is skipped for that.
func uniqKey(h *Host, alias string, n int64) string {
	ip := h.CMDB.InnerIP
	if ip == "" {
		ip = h.CMDB.InnerIPv6
	}
	if ip == "" {
		return ""
	}
	return fmt.Sprintf("%s-%d-%s-%d", ip, h.CMDB.BkCloudID, alias, n)
}

// duplicates are the CMDB processes behind each key that more than one
// process holds, by key.
func duplicates(rows []gse.ProcessRow, hosts map[int64]*Host) map[string][]int64 {
	owners := map[string][]int64{}
	for i := range rows {
		r := &rows[i]
		h := hosts[r.Host.ID]
		if h == nil {
			continue
		}
		for n := int64(1); n <= InstanceCount(r.Process); n++ {
			if k := uniqKey(h, r.Process.Name, n); k != "" {
				owners[k] = append(owners[k], r.Process.ID)
			}
		}
	}
	for k, ids := range owners {
		if len(ids) < 2 {
			delete(owners, k)
		}
	}
	return owners
}

// duplicateReason is why the instances of key ids hold are all skipped.
func duplicateReason(key string, ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return fmt.Sprintf("bk_process_id %s run the same alias as the same instance on one host (GSEKit's key %s): GSEKit refuses them all (DuplicateProcessInstException)",
		strings.Join(s, " and "), key)
}
