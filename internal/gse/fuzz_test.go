package gse

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The reply parsers, fuzzed. Seeds are real reply shapes (testdata/fuzz);
// `make fuzz` runs each target for a while.

const fuzzSecret = "s3cr3t-Fz"

// Any reply body and status: the call's verdict is consistent, and no text
// the client returns holds the configured secret, whatever the server echoed.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"result":true,"code":0,"message":"success","data":{"task_id":"GSETASK:1"},"request_id":"r"}`), 200)
	f.Add([]byte(`{"code":1306406,"message":"bad: {\"bk_app_secret\":\"`+fuzzSecret+`\"}"}`), 200)
	f.Add([]byte(`{"result":true,"code":0,"da`), 200)
	f.Add([]byte(`<html>502 Bad Gateway</html>`), 502)
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		if status < 100 || status > 599 {
			status = 200
		}
		info := &callInfo{api: "get_proc_status_v2", requestID: "rid", redact: newRedactor(fuzzSecret)}
		resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
		raw, readErr := bufferReply(resp)
		env, decodeErr := decodeEnvelope(raw)
		err := attemptError(info, resp, raw, readErr, env, decodeErr)
		if (err == nil) != (decodeErr == nil && status == 200 && env.ok()) {
			t.Fatalf("verdict %v for status %d, decode error %v, envelope %+v", err, status, decodeErr, env)
		}
		if err != nil && strings.Contains(err.Error(), fuzzSecret) {
			t.Fatalf("secret in %q", err)
		}
		// The buffered body replays what was read.
		again, _ := io.ReadAll(resp.Body)
		if !bytes.Equal(again, raw) {
			t.Fatal("the buffered body differs from what was read")
		}
	})
}

// Any result map of a poll: a task concludes with every wanted host either
// finished or pending, never both, never lost, and never a host at 115.
func FuzzResultMap(f *testing.F) {
	f.Add([]byte(`{"0:10.0.0.1:gse:proc-test":{"error_code":0,"error_msg":"success","content":""}}`))
	f.Add([]byte(`{"0:10.0.0.1:gse:proc-test":{"error_code":115,"error_msg":"processing"}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got map[string]HostResult
		if json.Unmarshal(data, &got) != nil {
			return
		}
		m := Meta{Namespace: "gse", Name: "proc-test"}
		hosts := []Host{{IP: "10.0.0.1"}, {IP: "10.0.0.2", BkCloudID: 1}, {IP: "2001:db8::1"}}
		keys := make([]string, len(hosts))
		wants := make([]HostOutcome, len(hosts))
		for i, h := range hosts {
			keys[i], wants[i] = keyV2(h, m), HostOutcome{Host: h, Meta: m, Op: OpStart}
		}
		final := map[string]HostResult{}
		settle(got, keys, final)
		for k, r := range final {
			if r.ErrorCode == HostPending || !strings.HasSuffix(k, ":gse:proc-test") {
				t.Fatalf("final %q: %+v", k, r)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out, err := conclude(ctx, nil, &HostsError{API: "operate_proc_v2", Target: m}, final, keys, wants)
		pendingN := 0
		if he, ok := err.(*HostsError); ok {
			pendingN = len(he.Pending)
			if he.Total != len(hosts) {
				t.Fatalf("total %d", he.Total)
			}
		}
		if len(out.Hosts)+pendingN != len(hosts) {
			t.Fatalf("%d finished + %d pending of %d hosts", len(out.Hosts), pendingN, len(hosts))
		}
	})
}

// Any status reply: entries index by host identity, stable under canonical IPs.
func FuzzStatusReply(f *testing.F) {
	f.Add([]byte(`{"proc_infos":[{"meta":{"namespace":"gse","name":"p"},"host":{"ip":"10.0.0.1","bk_cloud_id":0},"flag":1,"status":1,"isauto":true,"pid":4437}]}`))
	f.Add([]byte(`{"count":1,"proc_infos":[{"host":{"ip":"2001:DB8::1","bk_cloud_id":3},"bk_agent_id":"0200000007525400f355781710390005465c"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out statusReply
		if json.Unmarshal(data, &out) != nil {
			return
		}
		for _, e := range out.ProcInfos {
			ip := canonicalIP(e.Host.IP)
			if canonicalIP(ip) != ip {
				t.Fatalf("canonicalIP(%q) is not stable", e.Host.IP)
			}
			if e.Host.Key() != (Host{IP: ip, BkCloudID: e.Host.BkCloudID}).Key() {
				t.Fatalf("%q and its canonical form are different hosts", e.Host.IP)
			}
			if e.Target().Key() != e.Host.Key() {
				t.Fatalf("entry %+v is addressed as %s, a host of another key", e, e.Target())
			}
		}
	})
}
