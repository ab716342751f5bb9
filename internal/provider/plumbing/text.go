package plumbing

import "fmt"

// HostCount is "1 host" or "n hosts".
func HostCount(n int) string {
	if n == 1 {
		return "1 host"
	}
	return fmt.Sprintf("%d hosts", n)
}
