package gsekit_test

import (
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/gsekit"
)

// What renders to GSEKit's bytes, and what is refused with the construct named.
func TestRender(t *testing.T) {
	checkRenders(t, []renderCase{
		{in: "/data/nginx", want: "/data/nginx"},
		{in: "/data/${bk_module_name}/${bk_set_name}/${bk_process_name}", want: "/data/mod-1/set-a/nginx"},
		{in: "-p ${local_inst_id + 8079} -i ${ local_inst_id0 }", want: "-p 8081 -i 1"},
		{in: "${LocalInstID * 100}-${LocalInstID0 - 1} ${ModuleName} ${SetName} ${FuncID}", want: "200-0 mod-1 set-a nginx"},
		{in: "a\tb", want: "a    b"},
		{in: "kill $(cat run.pid) $HOME", want: "kill $(cat run.pid) $HOME"},
		{in: "%% literal", want: "% literal"},
		{in: "./run.sh ${inst_id}", refused: "${inst_id}: inst_id numbers instances across hosts in GSEKit's database"},
		{in: "${module_inst_seq}", refused: "numbers instances across hosts"},
		{in: "${unknown_name}", refused: "unknown_name is not a name GSEKit renders"},
		{in: "${bk_module_name + 1}", refused: "bk_module_name is not a number"},
		{in: "${local_inst_id | h}", refused: "only ${name}"},
		{in: "${str(local_inst_id)}", refused: "only ${name}"},
		{in: "${local_inst_id + local_inst_id}", refused: "only ${name}"},
		{in: "% if local_inst_id == 1:\n./a\n% endif", refused: "a Mako control line"},
		{in: "## comment\n./a", refused: "a Mako comment line"},
		{in: "<%! import os %>", refused: "a Mako tag"},
		{in: "./a \\\n  --b", refused: "backslash"},
		{in: "${local_inst_id", refused: "${ without its }"},
	})
}

// renderCase is a text, what it renders to, or the part of the reason it is
// refused for.
type renderCase struct{ in, want, refused string }

// checkRenders renders each case with instance 2 of nginx in set-a, mod-1.
func checkRenders(t *testing.T, cases []renderCase) {
	t.Helper()
	ctx := gsekit.NewRenderContext("set-a", "mod-1", "nginx", 2)
	for _, tc := range cases {
		got, err := gsekit.Render(tc.in, ctx)
		switch {
		case tc.refused == "" && (err != nil || got != tc.want):
			t.Errorf("render(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("render(%q) = %q, %v; want refused with %q", tc.in, got, err, tc.refused)
		}
	}
}
