// Package gse is a typed client for the GSE process-management APIs served
// through BlueKing ESB. It knows HTTP, authentication, envelopes, retries and
// polling, and nothing of Terraform.
package gse

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/go-uuid"
)

// Config holds what a Client needs. Endpoint, AppCode, AppSecret and one of
// Username / BkToken are required.
type Config struct {
	Endpoint        string // ESB root, e.g. https://paas.example.com
	AppCode         string
	AppSecret       string
	Username        string
	BkToken         string
	SupplierAccount string

	RequestTimeout     time.Duration // per attempt; default 30s
	MaxRetries         int           // retries after the first attempt
	InsecureSkipVerify bool
	CACertPEM          string // added to the system roots

	RetryWaitMin, RetryWaitMax time.Duration // backoff between attempts; default 1s..30s
	PollInitial, PollMax       time.Duration // task polling interval; default 500ms growing to 5s

	UserAgent string
	Logger    Logger
}

// Logger receives one line per API call and per retry. Fields never hold secrets.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

type nopLogger struct{}

func (nopLogger) Debug(context.Context, string, map[string]any) {}
func (nopLogger) Warn(context.Context, string, map[string]any)  {}

// Client calls the GSE APIs. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	http       *retryablehttp.Client
	bodyAuth   []byte // the common arguments, a JSON object merged into every body
	headerAuth string // X-Bkapi-Authorization
	userAgent  string
	poll       backoff
	log        Logger
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	base, err := ParseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	if cfg.AppCode == "" || cfg.AppSecret == "" {
		return nil, errors.New("app code and app secret are required")
	}
	if cfg.Username == "" && cfg.BkToken == "" {
		return nil, errors.New("one of username or bk_token is required")
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.MaxRetries < 0 {
		return nil, errors.New("max retries must not be negative")
	}
	transport := cleanhttp.DefaultPooledTransport() // a fresh transport: never touch http.DefaultTransport
	if cfg.InsecureSkipVerify || cfg.CACertPEM != "" {
		tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in
		if cfg.CACertPEM != "" {
			pool, err := x509.SystemCertPool()
			if err != nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM([]byte(cfg.CACertPEM)) {
				return nil, errors.New("ca_cert_pem holds no PEM certificate")
			}
			tlsCfg.RootCAs = pool
		}
		transport.TLSClientConfig = tlsCfg
	}
	log := cfg.Logger
	if log == nil {
		log = nopLogger{}
	}
	auth := authArgs{AppCode: cfg.AppCode, AppSecret: cfg.AppSecret, Username: cfg.Username, BkToken: cfg.BkToken}
	header, _ := json.Marshal(auth)
	auth.SupplierAccount = cfg.SupplierAccount
	body, _ := json.Marshal(auth)

	c := &Client{
		base: base, bodyAuth: body, headerAuth: string(header), log: log,
		userAgent: cfg.UserAgent,
		poll:      backoff{min: orDefault(cfg.PollInitial, 500*time.Millisecond), max: orDefault(cfg.PollMax, 5*time.Second)},
	}
	if c.userAgent == "" {
		c.userAgent = "terraform-provider-gse"
	}
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: transport, Timeout: cfg.RequestTimeout}
	rc.Logger = nil // it would print to stderr; calls are logged through c.log instead
	rc.RetryMax = cfg.MaxRetries
	rc.RetryWaitMin = orDefault(cfg.RetryWaitMin, time.Second)
	rc.RetryWaitMax = orDefault(cfg.RetryWaitMax, 30*time.Second)
	rc.CheckRetry = checkRetry
	rc.Backoff = retryBackoff
	rc.ErrorHandler = giveUp
	rc.RequestLogHook = c.logAttempt
	c.http = rc
	return c, nil
}

// ParseEndpoint checks an ESB root URL: http or https, a host, no query.
func ParseEndpoint(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("the endpoint is required")
	}
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil {
		return nil, fmt.Errorf("the endpoint %q is not a URL: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("the endpoint %q must be an http:// or https:// URL with a host and no query, e.g. https://paas.example.com", s)
	}
	return u, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

type authArgs struct {
	AppCode         string `json:"bk_app_code"`
	AppSecret       string `json:"bk_app_secret"`
	Username        string `json:"bk_username,omitempty"`
	BkToken         string `json:"bk_token,omitempty"`
	SupplierAccount string `json:"bk_supplier_account,omitempty"`
}

// envelope is the reply of every API. Gateway backends may omit result.
type envelope struct {
	Result    *bool           `json:"result"`
	Code      int             `json:"code"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"`
	RequestID string          `json:"request_id"`
}

func (e *envelope) ok() bool {
	if e.Result != nil {
		return *e.Result && e.Code == 0
	}
	return e.Code == 0
}

type ctxKey int

const callKey ctxKey = 0

// callInfo travels in the request context so the retry policy and log hook see it.
type callInfo struct {
	api        string
	requestID  string
	idempotent bool
	attempts   int
}

// call posts body (plus the common arguments) to family/api and decodes the
// envelope's data into out. Non-idempotent calls are retried only where the
// request cannot have been acted on (see checkRetry).
func (c *Client) call(ctx context.Context, family, api string, body, out any, idempotent bool) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encoding the request: %w", api, err)
	}
	payload = mergeObjects(c.bodyAuth, payload)
	rid, _ := uuid.GenerateUUID()
	info := &callInfo{api: api, requestID: rid, idempotent: idempotent}
	ctx = context.WithValue(ctx, callKey, info)

	u := c.base.JoinPath("api/c/compapi/v2", family, api) // ESB wants the trailing slash
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, u.String()+"/", payload)
	if err != nil {
		return fmt.Errorf("%s: %w", api, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("X-Bkapi-Authorization", c.headerAuth)
	req.Header.Set("X-Bkapi-Request-Id", rid)

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.log.Warn(ctx, "GSE API call failed", map[string]any{"api": api, "request_id": rid, "elapsed_ms": time.Since(start).Milliseconds(), "error": err.Error()})
		return fmt.Errorf("%s: %w", api, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s: reading the reply: %w", api, err)
	}
	var env envelope
	decodeErr := json.Unmarshal(raw, &env)
	fields := map[string]any{"api": api, "request_id": rid, "attempts": info.attempts, "http_status": resp.StatusCode, "code": env.Code, "elapsed_ms": time.Since(start).Milliseconds()}
	if env.RequestID != "" {
		fields["gse_request_id"] = env.RequestID
	}
	c.log.Debug(ctx, "GSE API call", fields)

	if decodeErr != nil || resp.StatusCode != http.StatusOK || !env.ok() {
		apiErr := &APIError{API: api, HTTPStatus: resp.StatusCode, Code: env.Code, Message: env.Message, RequestID: env.RequestID, Attempts: attemptsOf(resp)}
		if apiErr.RequestID == "" {
			apiErr.RequestID = rid
		}
		if m := resp.Header.Get("X-Bkapi-Error-Message"); apiErr.Message == "" && m != "" {
			apiErr.Message = m
		}
		if decodeErr != nil && apiErr.Message == "" {
			apiErr.Message = "the reply is not a GSE envelope: " + snippet(raw)
		}
		return apiErr
	}
	if out != nil && len(env.Data) > 0 && string(env.Data) != "null" {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return fmt.Errorf("%s: decoding data: %w (data: %s)", api, err, snippet(env.Data))
		}
	}
	return nil
}

// mergeObjects joins two JSON objects; keys of b follow those of a.
func mergeObjects(a, b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) <= 2 {
		return a
	}
	out := make([]byte, 0, len(a)+len(b))
	out = append(out, a[:len(a)-1]...)
	out = append(out, ',')
	return append(out, b[1:]...)
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
