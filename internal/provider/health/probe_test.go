package health

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The probe run by this machine's sh on its own sockets: a port a listener
// holds is listening, on IPv4 and IPv6; a port nothing holds is printed as
// not listening, with exit code 1, and notListening reads it back.
func TestProbeScriptOnThisHost(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this machine")
	}
	v4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer v4.Close()
	ports := []int{portOf(v4)}
	if v6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		defer v6.Close()
		ports = append(ports, portOf(v6))
	}
	free, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := portOf(free)
	free.Close()

	out, code := runSh(t, probeScript(ports))
	if code != 0 || out != "listening: "+joinPorts(ports)+"\n" {
		t.Errorf("probe of %v: exit %d, output %q", ports, code, out)
	}
	out, code = runSh(t, probeScript(append(ports, closed)))
	missing, printed := notListening(out)
	if code != 1 || out != "not listening: "+strconv.Itoa(closed)+"\n" || !printed || len(missing) != 1 || !missing[closed] {
		t.Errorf("probe of %v and closed %d: exit %d, output %q, read as %v %v", ports, closed, code, out, missing, printed)
	}
}

// Every port, 1-65535, reaches the probe's awk (longer than one argument
// may be) and is compared there: those no socket holds are printed.
func TestProbeScriptOfEveryPort(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this machine")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	all := make([]int, 65535)
	for i := range all {
		all[i] = i + 1
	}
	out, code := runSh(t, probeScript(all))
	missing, printed := notListening(out)
	if code != 1 || !printed || missing[portOf(l)] || !missing[1] || len(missing) < 60000 {
		t.Errorf("probe of every port: exit %d, %d ports read as not listening (printed %v), the listener's %d among them: %v", code, len(missing), printed, portOf(l), missing[portOf(l)])
	}
}

func portOf(l net.Listener) int { return int(netip.MustParseAddrPort(l.Addr().String()).Port()) }

// runSh runs script as JOB's agent does, from a file given to sh.
func runSh(t *testing.T, script string) (string, int) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "probe.sh")
	if err := os.WriteFile(f, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", f).Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

func joinPorts(ports []int) string {
	s := ""
	for i, p := range ports {
		if i > 0 {
			s += " "
		}
		s += strconv.Itoa(p)
	}
	return s
}

// notListening reads the probe's last line only, and nothing else as ports.
func TestNotListening(t *testing.T) {
	for out, want := range map[string]bool{
		"not listening: 80 443\n":              true,
		"Last login: today\nnot listening: 80": true,
		"listening: 80\n":                      false,
		"not listening:\n":                     false,
		"not listening: eighty\n":              false,
		"":                                     false,
	} {
		if _, got := notListening(out); got != want {
			t.Errorf("notListening(%q) = %v, want %v", out, got, want)
		}
	}
}
