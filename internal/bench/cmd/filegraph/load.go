package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/packages"
)

// graph is the files of one package and the arrows between them.
type graph struct {
	pkg   string
	files []string         // base names, sorted
	lines int              // of all files
	out   [][]int          // out[a]: the files a uses, sorted
	uses  map[arc][]string // the names behind each arrow, for -v
}

type arc struct{ from, to int }

func (g *graph) arrowCount() int { return len(g.uses) }

// load type-checks the package in dir and builds its file graph.
func load(dir string, tests bool) (*graph, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   abs,
		Tests: tests,
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, err
	}
	pkg := pick(pkgs, tests)
	if pkg == nil {
		return nil, fmt.Errorf("no Go package in %s", abs)
	}
	if len(pkg.Errors) > 0 {
		return nil, fmt.Errorf("%s: %v", pkg.PkgPath, pkg.Errors[0])
	}
	g := &graph{pkg: pkg.PkgPath, uses: map[arc][]string{}}
	index := map[string]int{}
	for _, name := range pkg.CompiledGoFiles {
		g.files = append(g.files, filepath.Base(name))
	}
	sort.Strings(g.files)
	for i, f := range g.files {
		index[f] = i
	}
	for _, name := range pkg.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		g.lines += bytes.Count(src, []byte("\n"))
	}
	fileOf := func(obj types.Object) (int, bool) {
		i, ok := index[filepath.Base(pkg.Fset.Position(obj.Pos()).Filename)]
		return i, ok
	}
	seen := map[arc]map[string]bool{}
	for _, file := range pkg.Syntax {
		from := index[filepath.Base(pkg.Fset.Position(file.Pos()).Filename)]
		ast.Inspect(file, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := pkg.TypesInfo.Uses[id]
			if !declaredHere(obj, pkg.Types) {
				return true
			}
			to, ok := fileOf(obj)
			if !ok || to == from {
				return true
			}
			a := arc{from, to}
			if seen[a] == nil {
				seen[a] = map[string]bool{}
			}
			if !seen[a][obj.Name()] {
				seen[a][obj.Name()] = true
				g.uses[a] = append(g.uses[a], obj.Name())
			}
			return true
		})
	}
	g.out = make([][]int, len(g.files))
	for a := range g.uses {
		g.out[a.from] = append(g.out[a.from], a.to)
		sort.Strings(g.uses[a])
	}
	for _, o := range g.out {
		sort.Ints(o)
	}
	return g, nil
}

// pick is the package itself, or with tests its variant compiled with its
// _test.go files (the one whose ID names the package twice).
func pick(pkgs []*packages.Package, tests bool) *packages.Package {
	var plain *packages.Package
	for _, p := range pkgs {
		switch {
		case p.ID == p.PkgPath:
			plain = p
		case tests && p.ID == p.PkgPath+" ["+p.PkgPath+".test]":
			return p
		}
	}
	return plain
}

// declaredHere tells whether obj is a name of pkg that another file could
// use: declared at package level, or a method or field (those have no
// parent scope; parameters, results and locals do).
func declaredHere(obj types.Object, pkg *types.Package) bool {
	if obj == nil || obj.Pkg() != pkg {
		return false
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Parent() == nil || o.Parent() == pkg.Scope()
	case *types.Var:
		return o.Parent() == pkg.Scope() || o.IsField()
	case *types.Const, *types.TypeName:
		return o.Parent() == pkg.Scope()
	}
	return false
}
