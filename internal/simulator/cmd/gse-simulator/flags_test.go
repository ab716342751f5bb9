package main

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMEListsEveryFlag: the simulator's flag table in README.md lists
// every flag the command takes, and no other.
func TestREADMEListsEveryFlag(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "\n| flag | default | |\n")
	if !ok {
		t.Fatal("README.md has no simulator flag table (| flag | default | |)")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `-([^`]+)` \\|").FindAllStringSubmatch(table, -1) {
		listed = append(listed, m[1])
	}
	var flags []string
	fs := flag.NewFlagSet("gse-simulator", flag.ContinueOnError)
	define(fs)
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	for _, f := range flags {
		if !slices.Contains(listed, f) {
			t.Errorf("README.md's simulator flag table lacks -%s", f)
		}
	}
	for _, f := range listed {
		if !slices.Contains(flags, f) {
			t.Errorf("README.md's simulator flag table lists -%s, which gse-simulator does not take", f)
		}
	}
}

// The flags that build the simulator refuse what they cannot read.
func TestServerRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		"-update-labels=drop":        `-update-labels "drop": want replace or keep`,
		"-agents-down=0:10.0.0.1,x":  `-agents-down: "x" is not bk_cloud_id:ip`,
		"-closed-ports=1:8080,1:80x": `-closed-ports: "1:80x" is not bk_host_id:port`,
		"-closed-ports=1:70000":      `-closed-ports: "1:70000" is not bk_host_id:port`,
	} {
		fs := flag.NewFlagSet("gse-simulator", flag.ContinueOnError)
		s := define(fs)
		if err := fs.Parse([]string{args}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.server(); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", args, err, want)
		}
	}
}
