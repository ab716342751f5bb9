package simulator

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What a host answers to the health checks gse_service runs through
// fast_execute_script: its TCP probe and the user's health script.
//
// A host listens on the TCP ports of the enabled bind_info rows (protocol
// "1" TCP or "3" TCP6: bk-cmdb src/common/metadata/process.go ProtocolType)
// of each CMDB process of it that has a GSE instance running there. The
// instance of a process is named as GSEKit names it,
// {bk_process_name}_{local_inst_id} for local_inst_id 1..proc_num
// (bk-process-config-manager 3ba5f7d8 apps/gsekit/process/handlers/process.py:
// proc_name=f"{process_info['bk_process_name']}_{local_inst_id}"), in any
// namespace. A port range "8000-8002" listens on each port of it, and a
// list "80,8000-8002" on each of its items (bk-cmdb 111e7ac6
// src/common/metadata/process.go ProcessPortFormat and
// PropertyPortValue.Validate). SetPortClosed closes a port although its
// process runs: a process that runs but failed to bind.
//
// The probe reads what the kernel lists: every TCP socket of the host's
// network namespace is a line of /proc/net/tcp (IPv4) or /proc/net/tcp6,
// listening sockets first, with its local port in hex after the address
// and its state as two hex digits, 0A for LISTEN (Linux
// Documentation/networking/proc_net_tcp.txt; net/ipv4/tcp_ipv4.c
// get_tcp4_sock: "%4d: %08X:%04X %08X:%04X %02X ..." with sk->sk_state,
// TCP_LISTEN = 10 in include/net/tcp_states.h). The simulator answers the
// probe (healthProbe) with what it prints over those lines: the ports that
// do not listen, exit code 1, or that all do, exit code 0.

// healthProbeMarker is the line that makes a shell script the provider's
// TCP probe, and healthProbePorts its line of ports to check.
const healthProbeMarker = "# gse_service tcp probe"

var healthProbePorts = regexp.MustCompile(`(?m)^ports='([0-9 ]*)'$`)

// scriptRule is SetScriptFails: a script holding contains exits code with
// output on hosts (every host when nil), and, with onFile, only on a host
// holding a file whose content contains onFile (SetScriptFailsOnContent).
type scriptRule struct {
	hosts    []int64
	contains string
	onFile   string
	code     int
	output   string
}

// SetScriptFails makes a script that contains the text contains exit with
// code and print output on the CMDB hosts hostIDs (every host when nil): a
// health script failing on the hosts chosen. A rule for the same contains
// replaces the earlier one; code 0 removes it. Rules are checked in the
// order they were set, before the scripts the simulator runs itself, on
// hosts that run the script's language (a shell script on a Windows host
// fails as it does without a rule).
func (j *JOBv3) SetScriptFails(hostIDs []int64, contains string, code int, output string) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.rules = slices.DeleteFunc(j.rules, func(r scriptRule) bool { return r.contains == contains })
	if code != 0 {
		j.rules = append(j.rules, scriptRule{hosts: slices.Clone(hostIDs), contains: contains, code: code, output: output})
	}
}

// SetScriptFailsOnContent makes a script that contains the text contains
// exit with code and print output on every host holding a file (one JOB
// pushed) whose content contains the text content: a health script that
// checks the config it finds, as `nginx -t` does, failing on a bad
// release and passing again once the file is restored. Rules replace and
// are removed as SetScriptFails says.
func (j *JOBv3) SetScriptFailsOnContent(contains, content string, code int, output string) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	j.rules = slices.DeleteFunc(j.rules, func(r scriptRule) bool { return r.contains == contains })
	if code != 0 {
		j.rules = append(j.rules, scriptRule{contains: contains, onFile: content, code: code, output: output})
	}
}

// SetPortClosed closes TCP port on the CMDB host id (true), although the
// process that binds it runs there, or opens it again.
func (j *JOBv3) SetPortClosed(id int64, port int, closed bool) {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	if j.closed[id] == nil {
		j.closed[id] = map[int]bool{}
	}
	j.closed[id][port] = closed
}

// Listening lists the TCP ports the CMDB host id listens on, ascending (nil
// for a host CMDB does not have).
func (j *JOBv3) Listening(id int64) []int {
	j.hub.mu.Lock()
	defer j.hub.mu.Unlock()
	h := j.cmdb.host(id)
	if h == nil {
		return nil
	}
	open := j.listening(h, j.gse.runningByHost())
	out := make([]int, 0, len(open))
	for p := range open {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ruleFor is the first rule that fails script on h, if any; the hub's lock held.
func (j *JOBv3) ruleFor(h *CMDBHost, script string) (scriptRule, bool) {
	for _, r := range j.rules {
		if strings.Contains(script, r.contains) && (r.hosts == nil || slices.Contains(r.hosts, h.ID)) && (r.onFile == "" || j.holds(h.ID, r.onFile)) {
			return r, true
		}
	}
	return scriptRule{}, false
}

// holds reports whether a file on host id contains content; the hub's lock held.
func (j *JOBv3) holds(id int64, content string) bool {
	for _, b := range j.files[id] {
		if strings.Contains(string(b), content) {
			return true
		}
	}
	return false
}

// healthProbe answers the TCP probe on h as the probe prints; ok is false
// for a script that is not the probe. running is GSE's running processes
// by host (runningByHost).
func (j *JOBv3) healthProbe(h *CMDBHost, script string, running func() map[procKey][]string) (code int, out string, ok bool) {
	if !strings.Contains(script, healthProbeMarker) {
		return 0, "", false
	}
	m := healthProbePorts.FindStringSubmatch(script)
	if m == nil {
		return 0, "", false
	}
	open := j.listening(h, running())
	var missing []string
	for p := range strings.FieldsSeq(m[1]) {
		if n, err := strconv.Atoi(p); err != nil || !open[n] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return 1, "not listening: " + strings.Join(missing, " ") + "\n", true
	}
	return 0, "listening: " + strings.Join(strings.Fields(m[1]), " ") + "\n", true
}

// listening is the set of TCP ports h listens on; the hub's lock held.
func (j *JOBv3) listening(h *CMDBHost, running map[procKey][]string) map[int]bool {
	names := running[keyOf("", "", h.CloudID, h.agentIP())]
	open := map[int]bool{}
	for _, in := range h.memberships() {
		for _, t := range j.cmdb.templates {
			if !slices.Contains(t.ModuleIDs, in.module) || !t.runsOn(names) {
				continue
			}
			for _, p := range t.tcpPorts() {
				if !j.closed[h.ID][p] {
					open[p] = true
				}
			}
		}
	}
	return open
}

// runningByHost lists the names of the GSE processes running on each host
// (keyOf with namespace and name empty); the hub's lock held.
func (g *GSE) runningByHost() map[procKey][]string {
	out := map[procKey][]string{}
	for k, p := range g.procs {
		if p.Running {
			h := keyOf("", "", k.cloud, k.ip)
			out[h] = append(out[h], k.name)
		}
	}
	return out
}

// runsOn reports whether an instance of t is among names, the GSE processes
// running on a host: {bk_process_name}_{local_inst_id}, local_inst_id from
// 1 to proc_num (1 when unset).
func (t *CMDBProcessTemplate) runsOn(names []string) bool {
	alias := fmt.Sprint(t.Fields["bk_process_name"])
	n := max(int(fieldNumber(t.Fields["proc_num"])), 1)
	return slices.ContainsFunc(names, func(name string) bool {
		i, err := strconv.Atoi(strings.TrimPrefix(name, alias+"_"))
		return err == nil && strings.HasPrefix(name, alias+"_") && i >= 1 && i <= n
	})
}

// tcpPorts are the ports of t's enabled TCP and TCP6 bind_info rows.
func (t *CMDBProcessTemplate) tcpPorts() []int {
	rows, _ := t.Fields["bind_info"].([]any)
	var out []int
	for _, r := range rows {
		row, _ := r.(map[string]any)
		if enable, _ := row["enable"].(bool); !enable {
			continue
		}
		if proto := fmt.Sprint(row["protocol"]); proto != "1" && proto != "3" {
			continue
		}
		port, _ := row["port"].(string)
		out = append(out, portList(port)...)
	}
	return out
}

// portList is every port of a CMDB port value: items joined by commas, each
// a port or a range lo-hi. An item that does not parse gives none (CMDB
// refuses it before it is stored).
func portList(v string) []int {
	var out []int
	for item := range strings.SplitSeq(v, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA != nil || errB != nil || a < 1 || b > 65535 || a > b {
			continue
		}
		for p := a; p <= b; p++ {
			out = append(out, p)
		}
	}
	return out
}

// fieldNumber is a numeric template field as a number: an int as the
// generated templates hold it, a float64 as an edit through HTTP gives it.
func fieldNumber(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

// agentIP is the address h's agent and GSE's processes on it go by: its
// first IPv4 address, else its first IPv6 one.
func (h *CMDBHost) agentIP() string {
	if ip := h.firstIPv4(); ip != "" {
		return ip
	}
	first, _, _ := strings.Cut(h.InnerIPv6, ",")
	return first
}

func (j *JOBv3) serveSetPortClosed(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(req struct {
		HostID int64 `json:"bk_host_id"`
		Port   int   `json:"port"`
		Closed bool  `json:"closed"`
	}) error {
		if req.Port < 1 || req.Port > 65535 {
			return fmt.Errorf("port %d is not a TCP port", req.Port)
		}
		j.SetPortClosed(req.HostID, req.Port, req.Closed)
		return nil
	})
}

func (j *JOBv3) serveSetScriptFails(w http.ResponseWriter, r *http.Request) {
	serveAdmin(w, r, func(req struct {
		HostIDs      []int64 `json:"bk_host_ids"`
		Contains     string  `json:"contains"`
		FileContains string  `json:"file_contains"`
		ExitCode     int     `json:"exit_code"`
		Output       string  `json:"output"`
	}) error {
		if req.FileContains != "" {
			if req.HostIDs != nil {
				return fmt.Errorf("give bk_host_ids or file_contains, not both")
			}
			j.SetScriptFailsOnContent(req.Contains, req.FileContains, req.ExitCode, req.Output)
			return nil
		}
		j.SetScriptFails(req.HostIDs, req.Contains, req.ExitCode, req.Output)
		return nil
	})
}

func (j *JOBv3) serveListening(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bk_host_id must be a number", http.StatusBadRequest)
		return
	}
	writeJSON(w, j.Listening(id))
}
