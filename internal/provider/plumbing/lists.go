package plumbing

import "github.com/hashicorp/terraform-plugin-framework/attr"

// ElementsValue is a list or a set: types.List, types.Set, hosts.List.
type ElementsValue interface {
	attr.Value
	Elements() []attr.Value
}

// DiffBy splits items into those only in prior, only in plan, and in both, comparing their keys.
func DiffBy[T any, K comparable](prior, plan []T, key func(T) K) (removed, added, kept []T) {
	inPrior, inPlan := map[K]bool{}, map[K]bool{}
	for _, x := range prior {
		inPrior[key(x)] = true
	}
	for _, x := range plan {
		inPlan[key(x)] = true
		if inPrior[key(x)] {
			kept = append(kept, x)
		} else {
			added = append(added, x)
		}
	}
	for _, x := range prior {
		if !inPlan[key(x)] {
			removed = append(removed, x)
		}
	}
	return removed, added, kept
}

// Each is f of every item, in order: how hosts change form (gse.JobIP.Host,
// gse.Host.JobIP, hosts.Model.Expand) or become keys (gse.Host.Key).
func Each[T, U any](items []T, f func(T) U) []U {
	out := make([]U, len(items))
	for i, x := range items {
		out[i] = f(x)
	}
	return out
}

// KeyOf is the key of an item through the client type it converts to, such
// as KeyOf(hosts.Ref.Expand): hosts are compared by the client's Key alone.
func KeyOf[T any, H interface{ Key() string }](api func(T) H) func(T) string {
	return func(x T) string { return api(x).Key() }
}

// SelectBy keeps the items whose key is among keys (keep) or is not (!keep).
func SelectBy[T any, K comparable](items []T, key func(T) K, keys []K, keep bool) []T {
	in := make(map[K]bool, len(keys))
	for _, k := range keys {
		in[k] = true
	}
	var out []T
	for _, x := range items {
		if in[key(x)] == keep {
			out = append(out, x)
		}
	}
	return out
}
