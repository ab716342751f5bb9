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
// exit code 0. One awk compares every port (a pipeline's status is its
// last command's), so a long range costs no process per port; the ports
// reach it on its input, where no argument's length limit
// (MAX_ARG_STRLEN, 128 KiB) applies to the 65,535 of "1-65535". It needs sh,
// cat and awk, and no privilege: /proc/net/tcp is readable by every user.
// It sees the sockets of the JOB agent's network namespace, the host's: a
// port a container publishes in a namespace of its own only is not seen.
// Without /proc/net/tcp (not Linux) it says so and exits 2. The ports are
// numbers, so their single-quoted list needs no escaping.
func probeScript(ports []int) string {
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	return probeMarker + "\n" +
		"ports='" + strings.Join(list, " ") + "'\n" +
		"if [ ! -r /proc/net/tcp ]; then echo 'cannot read /proc/net/tcp: the TCP probe needs Linux'; exit 2; fi\n" +
		"{ echo \"$ports\"; cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; } | awk '\n" +
		"NR == 1 { ports = $0; next }\n" +
		"$4 == \"0A\" { sub(/.*:/, \"\", $2); listen[$2] = 1 }\n" +
		"END {\n" +
		"  n = split(ports, p, \" \")\n" +
		"  for (i = 1; i <= n; i++) if (!(sprintf(\"%04X\", p[i]) in listen)) { if (!bad++) printf \"not listening:\"; printf \" %s\", p[i] }\n" +
		"  if (bad) { print \"\"; exit 1 }\n" +
		"  print \"listening: \" ports\n" +
		"}'\n"
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
