package health

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// How JOB takes the hosts of a task (a script of this package, or a push
// of gse_service's config files): by bk_host_id when every target has one
// (with host_id_list JOB ignores ip_list), else by IPv4 address and cloud.

// Addressing says whether JOB takes the targets' hosts by bk_host_id, else
// by IPv4 address, which every target must then have; what names the task
// in the error.
func Addressing(targets []Target, what string) (byID bool, err error) {
	if !slices.ContainsFunc(targets, func(t Target) bool { return t.BkHostID == 0 }) {
		return true, nil
	}
	var bad []string
	for _, t := range targets {
		if t.BkHostID == 0 && !ipv4(t.Host.IP) {
			bad = append(bad, t.Key)
		}
	}
	if len(bad) > 0 {
		return false, fmt.Errorf("no bk_host_id nor IPv4 address for the host of %s, which %s needs: JOB takes a host by one or the other", strings.Join(bad, ", "), what)
	}
	return false, nil
}

func ipv4(ip string) bool { return ip != "" && !strings.Contains(ip, ":") }

// HostKey is how a task knows a target's host: its bk_host_id, or its IPv4
// address and cloud (gse.JobIP.Key).
func HostKey(t Target, byID bool) string {
	if byID {
		return strconv.FormatInt(t.BkHostID, 10)
	}
	return t.Host.JobIP().Key()
}

// ResultKey is the HostKey of the host a result of JOB is about.
func ResultKey(h gse.JobHostTask, byID bool) string {
	if byID {
		return strconv.FormatInt(h.HostID, 10)
	}
	return gse.JobIP{IP: h.IP, BkCloudID: h.BkCloudID}.Key()
}

// JobTargets are hosts, by HostKey, as a task's target_server, in key order.
func JobTargets(hosts map[string]Target, byID bool) gse.JobTargets {
	var to gse.JobTargets
	for _, k := range slices.Sorted(maps.Keys(hosts)) {
		if tg := hosts[k]; byID {
			to.HostIDs = append(to.HostIDs, tg.BkHostID)
		} else {
			to.IPs = append(to.IPs, tg.Host.JobIP())
		}
	}
	return to
}
