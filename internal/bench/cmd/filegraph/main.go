// Command filegraph counts how the files of one Go package depend on each
// other, the "provider package" figures of the project's notes:
//
//   - files, lines: the package's .go files (test files only with -tests) and
//     their lines;
//   - arrows: ordered pairs of files (A, B), A != B, where A uses a name that B
//     declares: a package-level const, var, type or func, or a method or
//     struct field of a type of the package (each pair counts once, however
//     many names it uses);
//   - levels: the longest chain of arrows between cycles-collapsed files, plus
//     one (a package whose files use nothing of each other has 1 level);
//   - cycles: the strongly connected components of more than one file, the
//     files in them and the arrows inside them;
//   - back-arrows: the fewest arrows that run against the best order of the
//     files (each file after every file it uses), that is a minimum feedback
//     arc set: removing them leaves no cycle. Arrows between components never
//     count (the components have a topological order); inside a component
//     the order is searched exactly up to maxExact files, and by the greedy
//     order of Eades, Lin and Smyth beyond, which is then an upper bound and
//     printed as such. 0 back-arrows is the same as 0 cycles.
//
// It reads the package as the go command does (golang.org/x/tools/go/packages)
// and type-checks it, so a name is matched to its declaration, not by text.
//
//	go run ./internal/bench/cmd/filegraph [-v] [-arrows] [-tests] [dir]
//
// dir is the package's directory, in any module on disk (default
// ./internal/provider); -v lists the cycles and the back-arrows, -arrows
// every arrow with the names behind it.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the cycles and the back-arrows")
	arrows := flag.Bool("arrows", false, "list every arrow and the names behind it")
	tests := flag.Bool("tests", false, "count the package's _test.go files too (not its external test package)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: filegraph [-v] [-arrows] [-tests] [package directory]")
		flag.PrintDefaults()
	}
	flag.Parse()
	dir := "./internal/provider"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	g, err := load(dir, *tests)
	if err != nil {
		log.Fatalf("filegraph: %v", err)
	}
	r := g.analyse()
	fmt.Printf("package     %s\n", g.pkg)
	fmt.Printf("files       %d\n", len(g.files))
	fmt.Printf("lines       %d\n", g.lines)
	fmt.Printf("arrows      %d\n", g.arrowCount())
	fmt.Printf("levels      %d\n", r.levels)
	fmt.Printf("cycles      %d (%d files, %d arrows inside)\n", len(r.cycles), r.filesInCycles(), r.arrowsInCycles)
	bound := ""
	if r.heuristic {
		bound = " (at most: a cycle of more than " + fmt.Sprint(maxExact) + " files was ordered greedily)"
	}
	fmt.Printf("back-arrows %d%s\n", len(r.back), bound)
	if *arrows {
		fmt.Println("\narrows (file -> file it uses):")
		for _, a := range g.sortedArrows() {
			fmt.Printf("  %s -> %s: %s\n", g.files[a.from], g.files[a.to], strings.Join(g.uses[a], ", "))
		}
	}
	if !*verbose {
		return
	}
	for i, c := range r.cycles {
		fmt.Printf("\ncycle %d: %s\n", i+1, strings.Join(g.names(c), " "))
	}
	if len(r.back) > 0 {
		fmt.Println("\nback-arrows (file -> file it uses, against the order):")
	}
	for _, a := range r.back {
		fmt.Printf("  %s -> %s: %s\n", g.files[a.from], g.files[a.to], strings.Join(g.uses[a], ", "))
	}
}

func (g *graph) names(ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = filepath.Base(g.files[id])
	}
	sort.Strings(out)
	return out
}

func init() { log.SetFlags(0); log.SetOutput(os.Stderr) }
