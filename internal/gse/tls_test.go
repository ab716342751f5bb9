package gse_test

import (
	"encoding/pem"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Verification is on by default; a private CA is trusted through CACertPEM.
func TestTLSVerification(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(simulator.New(simulator.Options{}))
	t.Cleanup(srv.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	for _, tc := range []struct {
		name    string
		cfg     gse.Config
		wantErr string
	}{
		{"default verifies", gse.Config{MaxRetries: 3}, "certificate"},
		{"private CA", gse.Config{CACertPEM: caPEM}, ""},
		{"insecure", gse.Config{InsecureSkipVerify: true}, ""},
	} {
		cfg := tc.cfg
		cfg.Endpoint, cfg.AppCode, cfg.AppSecret, cfg.Username = srv.URL, "a", "s", "u"
		cfg.RetryWaitMin, cfg.RetryWaitMax = time.Millisecond, time.Millisecond
		c, err := gse.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Proc.GetProcStatusV2(ctxTimeout(t, 5*time.Second), meta, []gse.Host{host1})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "4 attempt")):
			t.Errorf("%s: err = %v, want a certificate error without retries", tc.name, err)
		}
	}
}
