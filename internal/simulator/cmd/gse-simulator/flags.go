package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// settings are the command's flags; README.md's simulator table lists each
// (TestREADMEListsEveryFlag).
type settings struct {
	listen, urlFile      string
	opts                 simulator.Options
	latency              time.Duration
	quota                float64
	quotaBurst           int
	without, agentsDown  string
	closedPorts          string
	job37, statusRewrite bool
	updateLabels         string
}

// define declares the flags on fs, into the settings it returns.
func define(fs *flag.FlagSet) *settings {
	s := &settings{}
	o := &s.opts
	fs.StringVar(&s.listen, "listen", "127.0.0.1:0", "address to listen on (loopback)")
	fs.StringVar(&o.AppCode, "app-code", "", "required bk_app_code (empty: any)")
	fs.StringVar(&o.AppSecret, "app-secret", "", "required bk_app_secret")
	fs.StringVar(&s.urlFile, "url-file", "", "write the server's URL to this file once listening")
	fs.StringVar(&o.TenantID, "tenant-id", "", "required X-Bk-Tenant-Id of gateway requests (empty: any)")
	fs.StringVar(&o.AccessToken, "access-token", "", "required access_token of gateway requests that send one (empty: any)")
	fs.DurationVar(&s.latency, "task-latency", time.Second, "how long each operation task takes; 0: tasks answer at their first poll")
	fs.IntVar(&o.CMDBHosts, "cmdb-hosts", 0, "hosts of the generated CMDB business 2 (list_biz_hosts; POST /_sim/cmdb/move moves one between modules)")
	fs.Float64Var(&o.ClockRate, "clock-rate", 0, "seconds the agents' clock (status entries' register_time, last_start_time, report_time) runs per real second (0: 1); POST /_sim/clock {\"advance\": \"10m\"} moves it on")
	fs.IntVar(&o.CMDBHostsPerModule, "cmdb-hosts-per-module", 0, "hosts of each module of the CMDB business, two modules a set (0: 100)")
	fs.IntVar(&o.CMDBProcessTemplates, "cmdb-process-templates", 2, "process templates of every module of the CMDB business (nginx, agent, then svc3, svc4, ...)")
	fs.Float64Var(&s.quota, "quota", 0, "requests per second each app may make (token bucket shared by every caller); 0: no limit")
	fs.IntVar(&s.quotaBurst, "quota-burst", 0, "the quota's burst (0: the quota rounded up)")
	fs.StringVar(&s.without, "without", "", "comma-separated APIs this installation lacks, e.g. operate_proc_multi,sync_proc_status")
	fs.BoolVar(&s.job37, "job-3.7", false, "a JOB 3.7 or later: the JOB process APIs answer 1306201 \"Status Code: 404\"")
	fs.BoolVar(&o.VerifiedUsersOnly, "verified-users-only", false, "refuse bk_username without bk_token, as ESB does for apps off its skip_user_auth whitelist and the gateway for apps it does not exempt")
	fs.BoolVar(&s.statusRewrite, "gateway-status-200", false, "the gateway's refusals with HTTP 200 (bk-status-rewrite, bound to every stage of bk-esb)")
	fs.StringVar(&s.updateLabels, "update-labels", string(simulator.LabelsReplaced), "what update_proc_info does with the labels of a process it is not sent: replace (drops them) or keep")
	fs.StringVar(&s.agentsDown, "agents-down", "", "comma-separated hosts bk_cloud_id:ip whose GSE agent is down: ESB operations on them answer 117, the gateway's list_agent_state reports status_code 3")
	fs.StringVar(&s.closedPorts, "closed-ports", "", "comma-separated bk_host_id:port: TCP ports that do not listen on a CMDB host although the process binding them runs (gse_service's tcp health check fails there)")
	return s
}

// server is the simulator the settings describe.
func (s *settings) server() (*simulator.Server, error) {
	o := s.opts
	o.TaskLatency, o.InstantTasks = s.latency, s.latency == 0
	switch on := simulator.LabelsOnUpdate(s.updateLabels); on {
	case simulator.LabelsReplaced, simulator.LabelsKept:
		o.UpdateLabels = on
	default:
		return nil, fmt.Errorf("-update-labels %q: want %s or %s", s.updateLabels, simulator.LabelsReplaced, simulator.LabelsKept)
	}
	down, err := hostsOf(s.agentsDown)
	if err != nil {
		return nil, fmt.Errorf("-agents-down: %w", err)
	}
	closed, err := portsOf(s.closedPorts)
	if err != nil {
		return nil, fmt.Errorf("-closed-ports: %w", err)
	}
	sim := simulator.New(o)
	for _, p := range closed {
		sim.JOBv3().SetPortClosed(p.hostID, p.port, true)
	}
	sim.SetGatewayStatusRewrite(s.statusRewrite)
	sim.SetQuota(s.quota, s.quotaBurst)
	if s.without != "" {
		sim.RemoveAPIs(strings.Split(s.without, ",")...)
	}
	sim.JOB().SetProcessAPIsRemoved(s.job37)
	for _, h := range down {
		sim.SetAgentDown(h.cloud, h.ip, true)
	}
	return sim, nil
}

// host is a host of a flag, bk_cloud_id:ip.
type host struct {
	cloud int64
	ip    string
}

// hostsOf reads a comma-separated list of bk_cloud_id:ip.
func hostsOf(list string) ([]host, error) {
	var out []host
	for item := range strings.SplitSeq(list, ",") {
		if item == "" {
			continue
		}
		var h host
		if _, err := fmt.Sscanf(item, "%d:%s", &h.cloud, &h.ip); err != nil {
			return nil, fmt.Errorf("%q is not bk_cloud_id:ip", item)
		}
		out = append(out, h)
	}
	return out, nil
}

// hostPort is a TCP port of a CMDB host, bk_host_id:port.
type hostPort struct {
	hostID int64
	port   int
}

// portsOf reads a comma-separated list of bk_host_id:port.
func portsOf(list string) ([]hostPort, error) {
	var out []hostPort
	for item := range strings.SplitSeq(list, ",") {
		if item == "" {
			continue
		}
		var p hostPort
		var rest string
		if n, _ := fmt.Sscanf(item+" .", "%d:%d%s", &p.hostID, &p.port, &rest); n != 3 || rest != "." || p.port < 1 || p.port > 65535 {
			return nil, fmt.Errorf("%q is not bk_host_id:port", item)
		}
		out = append(out, p)
	}
	return out, nil
}
