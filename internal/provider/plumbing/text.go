package plumbing

import "fmt"

// HostCount is "1 host" or "n hosts".
func HostCount(n int) string {
	if n == 1 {
		return "1 host"
	}
	return fmt.Sprintf("%d hosts", n)
}

// Quoted lists names as Markdown code, comma-separated: `a`, `b`.
func Quoted(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += "`" + n + "`"
	}
	return s
}
