package simulator_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Each server refuses in its own shape: the body's keys and values, the
// HTTP status, and the headers a client reads.
func TestRefusalShapes(t *testing.T) {
	sim := simulator.New(simulator.Options{AppCode: "app", AppSecret: "secret", TenantID: "t1"})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	const gw, esb = "/api/v2/proc/get_proc_status_v2", "/api/c/compapi/v2/gse/get_proc_status_v2/"
	const gwBody = `{"meta":{"namespace":"ns","name":"p"},"agent_id_list":["0:10.0.0.1"]}`
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, tc := range []struct {
		name, path, auth, tenant, body string
		fault                          *simulator.Fault
		status                         int
		want                           map[string]any // every key of the body; "*" any value
		header                         map[string]string
	}{
		{name: "gateway: wrong secret", path: gw, auth: `{"bk_app_code":"app","bk_app_secret":"x","bk_username":"u"}`, tenant: "t1", body: gwBody,
			status: 400, want: map[string]any{"code": 1640001.0, "code_name": "INVALID_ARGS", "message": `Parameters error [reason="bk_app_code or bk_app_secret is incorrect"]`, "result": false, "data": nil},
			header: map[string]string{"X-Bkapi-Error-Code": "1640001", "X-Request-Id": "client-id"}},
		{name: "gateway: no tenant", path: gw, auth: `{"bk_app_code":"app","bk_app_secret":"secret","bk_username":"u"}`, body: gwBody,
			status: 403, want: map[string]any{"code": 1640302.0, "code_name": "CROSS_TENANT_FORBIDDEN", "message": `Cross tenant forbidden [reason="Cross-tenant calls are not allowed: header X-Bk-Tenant-Id is required and should not be empty. the app app tenant_mode=global. [AH1]"]`, "result": false, "data": nil}},
		{name: "gateway: backend refused the connection", path: gw, auth: `{"bk_app_code":"app","bk_app_secret":"secret","bk_username":"u"}`, tenant: "t1", body: gwBody,
			fault:  &simulator.Fault{API: "get_proc_status_v2", Code: 1650200},
			status: 502, want: map[string]any{"code": 1650200.0, "code_name": "BAD_GATEWAY", "message": `Bad Gateway [upstream_error="connection refused"]`, "result": false, "data": nil}},
		{name: "gateway: bk-cmdb's limiter", path: gw, auth: `{"bk_app_code":"app","bk_app_secret":"secret","bk_username":"u"}`, tenant: "t1", body: gwBody,
			fault:  &simulator.Fault{API: "get_proc_status_v2", Code: 1199997},
			status: 200, want: map[string]any{"result": false, "bk_error_code": 1199997.0, "bk_error_msg": "too many requests", "permission": nil}},
		{name: "ESB: wrong secret", path: esb, body: `{"bk_app_code":"app","bk_app_secret":"x","bk_username":"u"}`,
			status: 200, want: map[string]any{"result": false, "code": 1306000.0, "data": nil, "request_id": "*",
				"message": "APP Secret verification failed, pelase confirm if the APP Secret and APP Code [bk_app_code=app] match"}},
		{name: "ESB: backend timed out", path: esb, body: `{"bk_app_code":"app","bk_app_secret":"secret","bk_username":"u"}`,
			fault:  &simulator.Fault{API: "get_proc_status_v2", Code: 1306201},
			status: 200, want: map[string]any{"result": false, "code": 1306201.0, "data": nil, "request_id": "*",
				"message": "Component request third-party system [GSE] interface [get_proc_status_v2] error: Third-party system interface response time exceeds 30 seconds, please try again later or contact component developer to handle this"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != nil {
				sim.AddFault(*tc.fault)
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(tc.body))
			if tc.auth != "" {
				req.Header.Set("X-Bkapi-Authorization", tc.auth)
			}
			if tc.tenant != "" {
				req.Header.Set("X-Bk-Tenant-Id", tc.tenant)
			}
			req.Header.Set("X-Request-Id", "client-id")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || len(got) != len(tc.want) {
				t.Fatalf("HTTP %d %v, want %d %v", resp.StatusCode, got, tc.status, tc.want)
			}
			for k, v := range tc.want {
				if g, ok := got[k]; !ok || (v != "*" && g != v) {
					t.Errorf("%s = %#v, want %#v", k, g, v)
				}
			}
			for k, v := range tc.header {
				if g := resp.Header.Get(k); g != v {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
			if strings.HasPrefix(tc.path, "/api/v2/") && !uuid.MatchString(resp.Header.Get("X-Bkapi-Request-Id")) {
				t.Errorf("X-Bkapi-Request-Id %q is not the gateway's own UUID", resp.Header.Get("X-Bkapi-Request-Id"))
			}
		})
	}
}
