package simulator_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// post sends body to path with app's credentials and returns the HTTP status and envelope code.
func post(t *testing.T, srv *httptest.Server, path, app, body string) (int, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	req.Header.Set("X-Bkapi-Authorization", `{"bk_app_code":"`+app+`","bk_app_secret":"s","bk_username":"admin"}`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct{ Code int }
	_ = json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, env.Code
}

const statusBody = `{"meta":{"namespace":"ns","name":"p"},"hosts":[{"ip":"10.0.0.1","bk_cloud_id":0}]}`

func TestQuotaIsPerAppAndSharedByCallers(t *testing.T) {
	sim := simulator.New(simulator.Options{})
	sim.SetQuota(0.001, 2) // two requests, then none for a long while
	srv := httptest.NewServer(sim)
	defer srv.Close()
	esb := "/api/c/compapi/v2/gse/get_proc_status_v2/"
	for i, want := range []int{0, 0, 1306429} {
		if st, code := post(t, srv, esb, "app-a", statusBody); st != http.StatusOK || code != want {
			t.Errorf("ESB request %d of app-a: HTTP %d code %d, want 200 code %d", i+1, st, code, want)
		}
	}
	if _, code := post(t, srv, esb, "app-b", statusBody); code != 0 {
		t.Errorf("another app shares app-a's bucket: code %d", code)
	}
	// The gateway is the same installation: app-a's bucket is empty there too.
	if st, code := post(t, srv, "/api/v2/proc/get_proc_status_v2", "app-a", `{"meta":{"namespace":"ns","name":"p"},"agent_id_list":["0:10.0.0.1"]}`); st != http.StatusTooManyRequests || code != 1642902 {
		t.Errorf("gateway: HTTP %d code %d, want 429 code 1642902", st, code)
	}
	calls := sim.AllCalls()
	if calls[simulator.RateLimitedKey] != 2 || calls["get_proc_status_v2"] != 5 {
		t.Errorf("calls %v: want 2 refused of 5 received", calls)
	}
}

func TestRemovedAPIs(t *testing.T) {
	sim := simulator.New(simulator.Options{})
	sim.RemoveAPIs("operate_proc_multi", "sync_proc_status")
	srv := httptest.NewServer(sim)
	defer srv.Close()
	if st, code := post(t, srv, "/api/c/compapi/v2/gse/operate_proc_multi/", "app", `{"proc_operate_req":[]}`); st != http.StatusOK || code != 1306404 {
		t.Errorf("ESB operate_proc_multi: HTTP %d code %d, want 200 code 1306404", st, code)
	}
	if st, code := post(t, srv, "/api/v2/proc/sync_proc_status", "app", `{"meta":{"namespace":"ns"},"page":{"start":0,"limit":10}}`); st != http.StatusNotFound || code != 1640401 {
		t.Errorf("gateway sync_proc_status: HTTP %d code %d, want 404 code 1640401", st, code)
	}
	if _, code := post(t, srv, "/api/c/compapi/v2/gse/get_proc_status_v2/", "app", statusBody); code != 0 {
		t.Errorf("an API not removed answers code %d", code)
	}
}
