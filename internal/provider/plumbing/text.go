package plumbing

import "fmt"

// HostCount is "1 host" or "n hosts".
func HostCount(n int) string { return Count(n, "host") }

// Count is n of noun, its plural made with an s: "1 process instance", "2 process instances".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
