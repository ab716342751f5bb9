package acctest

import (
	"encoding/json"
	"path"
	"strings"
)

// SpecFieldSent is, for every GSE spec the simulator was sent (the items
// of operate_proc_multi included), by API, the JSON of the spec's field,
// or "none" where the spec had no such field: what each path sends. The
// simulator must record requests (simulator.Options.RecordRequests).
func (e *Env) SpecFieldSent(field string) map[string][]string {
	out := map[string][]string{}
	for _, r := range e.Sim.Requests() {
		api := path.Base(strings.TrimSuffix(r.Path, "/"))
		var body map[string]any
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		items, _ := body["proc_operate_req"].([]any)
		for _, b := range append([]any{body}, items...) {
			m, _ := b.(map[string]any)
			sp, ok := m["spec"].(map[string]any)
			if !ok {
				continue
			}
			v, has := sp[field]
			if !has {
				out[api] = append(out[api], "none")
				continue
			}
			got, _ := json.Marshal(v)
			out[api] = append(out[api], string(got))
		}
	}
	return out
}
