package gsekit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GSEKit renders a process's paths and commands with Mako before it sends
// them (gsekit apps/gsekit/pipeline_plugins/components/collections/gse.py,
// bk-bscp internal/processor/gse/gse.go buildRenderContext). The provider
// renders the part of Mako that needs no Python and no GSEKit state, to the
// same bytes, and refuses the rest, naming it: never a half-rendered spec.
// What Mako itself refuses is refused here too, for Mako's reason (mako
// mako/lexer.py Lexer.parse and its match_* methods; the expression is
// compiled as Python 3).

// RenderContext is what a template may name for one instance: GSEKit's
// names and their legacy spellings, ints or strings.
type RenderContext map[string]any

// NewRenderContext is the context of instance localInstID of the process
// alias in a module of a set.
func NewRenderContext(setName, moduleName, alias string, localInstID int64) RenderContext {
	return RenderContext{
		"local_inst_id": localInstID, "local_inst_id0": localInstID - 1, "LocalInstID": localInstID, "LocalInstID0": localInstID - 1,
		"bk_set_name": setName, "SetName": setName, "bk_module_name": moduleName, "ModuleName": moduleName,
		"bk_process_name": alias, "FuncID": alias, // FuncID is the alias, not the function id (GSEKit's legacy name)
	}
}

// gsekitStateNames number instances across hosts in GSEKit's (or
// bk-bscp's) database; no CMDB API returns them.
var gsekitStateNames = []string{"inst_id", "inst_id_0", "InstID", "InstID0", "module_inst_seq", "module_inst_seq_0", "host_inst_seq", "host_inst_seq_0"}

// renderExpr is what ${...} may hold here: a name, or an integer name and
// an integer literal joined by +, - or *.
var renderExpr = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:([-+*])\s*(\d+)\s*)?$`)

// Render is text rendered as GSEKit would, or why it cannot be.
func Render(text string, ctx RenderContext) (string, error) {
	text = strings.ReplaceAll(text, "\t", "    ") // GSEKit's clean_mako_content does it before Mako
	switch {
	case strings.Contains(text, "<%"):
		return "", fmt.Errorf("a Mako tag (<%%...>)")
	case strings.Contains(text, "</%"):
		// match_tag_end: "Closing tag without opening tag" (no tag opens
		// here); a "</%" that is no closing tag loses its "<" in match_text.
		return "", fmt.Errorf("a Mako closing tag (</%%...>) without its opening tag, which Mako refuses")
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "%%"):
			lines[i] = strings.Replace(line, "%%", "%", 1) // an escaped %
		case strings.HasPrefix(trimmed, "%"):
			return "", fmt.Errorf("a Mako control line (%q)", trimmed)
		case strings.HasPrefix(trimmed, "##"):
			return "", fmt.Errorf("a Mako comment line (%q)", trimmed)
		case (strings.HasSuffix(line, `\`) || strings.HasSuffix(line, "\\\r")) && i < len(lines)-1:
			// match_text drops an escaped newline, \n or \r\n alike.
			return "", fmt.Errorf("a line ending in a backslash, which Mako joins to the next")
		}
	}
	text = strings.Join(lines, "\n")
	var b strings.Builder
	for {
		i := strings.Index(text, "${")
		if i < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		b.WriteString(text[:i])
		expr, rest, ok := strings.Cut(text[i+2:], "}")
		if !ok {
			return "", fmt.Errorf("${ without its }")
		}
		v, err := evaluate(expr, ctx)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		text = rest
	}
}

// evaluate is the value of the expression of ${expr}.
func evaluate(expr string, ctx RenderContext) (string, error) {
	m := renderExpr.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("${%s}: only ${name}, and ${name + n}, ${name - n} or ${name * n} with an integer n, are rendered without Mako", expr)
	}
	v, ok := ctx[m[1]]
	switch {
	case !ok && slices.Contains(gsekitStateNames, m[1]):
		return "", fmt.Errorf("${%s}: %s numbers instances across hosts in GSEKit's database, which no CMDB API returns", expr, m[1])
	case !ok:
		return "", fmt.Errorf("${%s}: %s is not a name GSEKit renders (Mako would fail with NameError)", expr, m[1])
	case m[2] == "":
		return fmt.Sprint(v), nil
	}
	n, isInt := v.(int64)
	if !isInt {
		return "", fmt.Errorf("${%s}: %s is not a number", expr, m[1])
	}
	if len(m[3]) > 1 && strings.Trim(m[3], "0") != "" && m[3][0] == '0' {
		return "", fmt.Errorf("${%s}: %s has a leading zero, which Python 3 refuses in an integer (Mako would fail with SyntaxError)", expr, m[3])
	}
	k, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil {
		return "", fmt.Errorf("${%s}: %s is not an integer", expr, m[3])
	}
	switch m[2] {
	case "+":
		n += k
	case "-":
		n -= k
	default:
		n *= k
	}
	return strconv.FormatInt(n, 10), nil
}
