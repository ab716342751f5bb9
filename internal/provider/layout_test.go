package provider

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedPackages are the packages below internal/provider that families
// build on. Every other package below it is a resource family: adding a
// family needs no edit here, adding a shared package does.
var sharedPackages = []string{"cmdbfilter", "gsekit", "health", "hosts", "lifecycle", "packed", "plumbing", "rollout", "spec", "status"}

// testSupport packages serve the tests: acctest imports this package to
// serve the whole provider, so it sees every family by design.
var testSupport = []string{"acctest"}

// TestLayout holds the packages below internal/provider to their layers: a
// family never imports another family, and a shared package imports no
// family. Direct imports suffice: when every edge points down, no family is
// among the dependencies of another or of a shared package.
func TestLayout(t *testing.T) {
	for _, v := range layoutViolations(t, ".", "github.com/bk-gse/terraform-provider-gse/internal/provider") {
		t.Error(v)
	}
}

// TestLayoutFindsViolations shows the check failing on a family that imports
// another and a shared package that imports a family.
func TestLayoutFindsViolations(t *testing.T) {
	root := t.TempDir()
	const mod = "example.com/p"
	write := func(dir, imports string) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package " + filepath.Base(dir) + "\n\nimport (\n" + imports + ")\n"
		if err := os.WriteFile(filepath.Join(root, dir, "a.go"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("alpha", "\t_ \""+mod+"/beta\"\n\t_ \""+mod+"/spec\"\n")
	write("beta", "\t_ \"fmt\"\n")
	write("spec", "\t_ \""+mod+"/beta\"\n")
	write("acctest", "\t_ \""+mod+"/alpha\"\n")
	got := layoutViolations(t, root, mod)
	want := []string{
		"family alpha imports family beta: move what both need to a shared package",
		"shared package spec imports family beta: shared packages build on nothing above them",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n got %q\nwant %q", got, want)
	}
}

// layoutViolations lists the imports between the packages below dir (whose
// import path is base) that break the layers.
func layoutViolations(t *testing.T, dir, base string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		pkg, err := build.ImportDir(p, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		for _, imp := range pkg.Imports {
			if v := layerViolation(rel, strings.TrimPrefix(imp, base+"/"), strings.HasPrefix(imp, base+"/")); v != "" {
				out = append(out, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerViolation says what is wrong with package from importing to (both
// relative to internal/provider; below says whether to is below it), or "".
func layerViolation(from, to string, below bool) string {
	top := func(p string) string { first, _, _ := strings.Cut(p, "/"); return first }
	from, to = top(from), top(to)
	if !below || from == to || slices.Contains(testSupport, from) || slices.Contains(sharedPackages, to) {
		return ""
	}
	if slices.Contains(sharedPackages, from) {
		return "shared package " + from + " imports family " + to + ": shared packages build on nothing above them"
	}
	return "family " + from + " imports family " + to + ": move what both need to a shared package"
}
