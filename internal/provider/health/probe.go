package health

import (
	"strconv"
	"strings"
)

// probeMarker starts the TCP probe: a stable line by which JOB's history and
// the simulator know it.
const probeMarker = "# gse_service tcp probe"

// probeScript is the TCP probe of ports: a POSIX sh and awk script that
// reads the host's TCP sockets from /proc/net/tcp and /proc/net/tcp6 (one
// line per socket: its local address:port in hex, then the remote one, then
// its state, 0A for LISTEN: Linux Documentation/networking/proc_net_tcp.txt,
// net/ipv4/tcp_ipv4.c get_tcp4_sock) and prints "not listening:" and the
// ports no socket listens on, exit code 1, or "listening:" and the ports,
// exit code 0. It needs no tool beyond sh, cat, awk and printf, and no
// privilege: /proc/net/tcp is readable by every user. It sees the sockets
// of the JOB agent's network namespace, the host's: a port a container
// publishes through its own namespace only is not seen. Without
// /proc/net/tcp (not Linux) it says so and exits 2. The ports are numbers,
// so the single-quoted list needs no escaping.
func probeScript(ports []int) string {
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	return probeMarker + "\n" +
		"ports='" + strings.Join(list, " ") + "'\n" +
		"if [ ! -r /proc/net/tcp ]; then echo 'cannot read /proc/net/tcp: the TCP probe needs Linux'; exit 2; fi\n" +
		"listening=\" $(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == \"0A\" { sub(/.*:/, \"\", $2); printf \"%s \", $2 }')\"\n" +
		"missing=\n" +
		"for p in $ports; do\n" +
		"  case \"$listening\" in *\" $(printf '%04X' \"$p\") \"*) ;; *) missing=\"$missing $p\" ;; esac\n" +
		"done\n" +
		"if [ -n \"$missing\" ]; then echo \"not listening:$missing\"; exit 1; fi\n" +
		"echo \"listening: $ports\"\n"
}

// notListening reads the probe's output: the ports it printed as not
// listening, and whether it printed them (its last line that is not blank:
// a login banner of the account may come before it).
func notListening(out string) (map[int]bool, bool) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(lines[len(lines)-1]), "not listening:")
	if !ok {
		return nil, false
	}
	missing := map[int]bool{}
	for f := range strings.FieldsSeq(rest) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		missing[n] = true
	}
	return missing, len(missing) > 0
}
