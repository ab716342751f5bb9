package gse_test

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// A meta as GSE reports it: label values that are not strings, as GSEKit
// registers bk_process_id, are read as their JSON text; labels sent empty
// and not sent stay apart on the wire.
func TestMetaLabels(t *testing.T) {
	t.Parallel()
	var m gse.Meta
	if err := json.Unmarshal([]byte(`{"namespace": "GSEKIT_BIZ_2", "name": "nginx_1", "labels": {"bk_process_name": "nginx", "bk_process_id": 42}}`), &m); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"bk_process_name": "nginx", "bk_process_id": "42"}; m.Namespace != "GSEKIT_BIZ_2" || m.Name != "nginx_1" || !maps.Equal(m.Labels, want) {
		t.Errorf("meta %+v, want labels %v", m, want)
	}
	for _, tc := range []struct {
		labels map[string]string
		want   string
	}{
		{nil, `{"namespace":"gse","name":"p"}`},
		{map[string]string{}, `{"namespace":"gse","name":"p","labels":{}}`},
		{map[string]string{"team": "ops"}, `{"namespace":"gse","name":"p","labels":{"team":"ops"}}`},
	} {
		b, err := json.Marshal(gse.Meta{Namespace: "gse", Name: "p", Labels: tc.labels})
		if err != nil || string(b) != tc.want {
			t.Errorf("labels %#v sent as %s (%v), want %s", tc.labels, b, err, tc.want)
		}
	}
}
