package gse

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/go-uuid"
)

// Config holds what a Client needs: Endpoint (or GatewayURL), and either
// AccessToken or AppCode, AppSecret and one of Username / BkToken.
type Config struct {
	Endpoint        string // ESB root, e.g. https://paas.example.com; with GatewayURL set, only the JOB and CMDB APIs no gateway of Config serves need it
	AppCode         string
	AppSecret       string
	Username        string
	BkToken         string
	SupplierAccount string

	// GatewayURL is the GSE 2.0 root on the BlueKing API gateway, e.g.
	// https://bkapi.example.com/api/bk-gse/prod. When set, every GSE call goes
	// to {GatewayURL}/api/v2/proc/{api} (agent state: /api/v2/cluster/{api}),
	// hosts are addressed by agent id, and credentials travel only in the
	// X-Bkapi-Authorization header.
	GatewayURL  string
	TenantID    string // sent as X-Bk-Tenant-Id on every request when set
	AccessToken string // an alternative to AppCode/AppSecret + Username/BkToken

	// JobGatewayURL is the bk-job root on the API gateway, e.g.
	// https://bkapi.example.com/api/bk-job/prod: JOB's v3 APIs (files and
	// scripts) go to {JobGatewayURL}/api/v3/{api}; otherwise to ESB's jobv3.
	JobGatewayURL string

	// CMDBGatewayURL is the bk-cmdb root on the API gateway, e.g.
	// https://bkapi.example.com/api/bk-cmdb/prod. When set, host listings go
	// to {CMDBGatewayURL}/api/v3/hosts/app/{bk_biz_id}/list_hosts with the
	// gateway's credentials; otherwise to ESB's cc/list_biz_hosts.
	CMDBGatewayURL string

	RequestTimeout time.Duration // per attempt; default 30s
	MaxRetries     int           // retries after the first attempt for faults; refusals for the rate limit retry until the context ends
	// RateLimit is requests per second for the app on this installation,
	// shared by every client of this process configured alike; 0 adapts
	// the rate to the installation's refusals (limiter.go).
	RateLimit float64
	// PaceDir is where the adaptive rate's cuts and the learned first polls
	// are remembered for the processes that follow (pace_memory.go); ""
	// remembers nothing.
	PaceDir            string
	InsecureSkipVerify bool
	CACertPEM          string // added to the system roots

	RetryWaitMin, RetryWaitMax time.Duration // backoff between attempts; default 1s..30s
	PollInitial, PollMax       time.Duration // task polling interval; default 100ms growing ×4 to 5s

	// BatchWindow is how long Operate gathers concurrent calls into one
	// operate_proc_multi task; default 100ms, negative turns batching off.
	BatchWindow time.Duration

	UserAgent string
	Logger    Logger
}

// secrets lists every credential of cfg, to be redacted from every text the
// client returns or logs; a credential Config gains goes here too.
func (cfg Config) secrets() []string { return []string{cfg.AppSecret, cfg.BkToken, cfg.AccessToken} }

// Client calls the GSE, JOB and CMDB APIs, one service per API family (as
// google/go-github's client does). It is safe for concurrent use.
type Client struct {
	Proc *ProcService // GSE's process APIs (register_proc_info, operate_proc_multi, get_proc_status_v2, ...)
	Job  *JobService  // the JOB platform's process APIs (operate_process, operate_proc, get_proc_result) and v3 jobs (push_config_file, fast_execute_script, ...)
	// Cluster is GSE 2.0's agent APIs (list_agent_state); gateway mode only.
	Cluster *ClusterService
	CMDB    *CMDBService // bk-cmdb's hosts and processes (list_biz_hosts, list_process_related_info), through ESB or its gateway

	base       *url.URL // ESB root; nil when only GatewayURL is set
	gateway    *url.URL // GSE 2.0 root; nil in ESB mode
	cmdb       *url.URL // bk-cmdb gateway root; nil: CMDB through ESB
	job        *url.URL // bk-job gateway root; nil: JOB's v3 APIs through ESB
	tenant     string
	http       *retryablehttp.Client
	bodyAuth   []byte // the common arguments, a JSON object merged into every body
	headerAuth string // X-Bkapi-Authorization
	userAgent  string
	poll       backoff // GSE tasks, and states watched
	jobPoll    backoff // JOB jobs: their own first polls (firstPoll)
	log        Logger
	redact     redactor
	credential string // credentialKind of what is sent
	ops        *batcher
	pacers     [rootCount]*pacer // by Root: every request waits for its root's (buckets.go)
	maxRetries int
	common     service // shared by the services: one allocation for all
}

// service is what every API family's service holds: the client that sends its calls.
type service struct{ client *Client }

// ProcService calls GSE's process APIs.
type ProcService service

// JobService calls the JOB platform's process APIs.
type JobService service

// ClusterService calls GSE 2.0's agent APIs through the gateway.
type ClusterService service

// CACertPool is the system roots plus the PEM certificates of caPEM, or an
// error when caPEM holds none.
func CACertPool(caPEM string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM([]byte(caPEM)) {
		return nil, errors.New("the CA certificate holds no PEM certificate")
	}
	return pool, nil
}

// New validates cfg and returns a Client: the roots and budgets of cfg are
// checked, the transport built, then the client and its services wired to
// the retrying HTTP client (retry.go).
func New(cfg Config) (*Client, error) {
	r, err := cfg.roots()
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	transport, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	c := newClient(cfg, r)
	c.http = c.newRetryClient(cfg, transport)
	return c, nil
}

// roots are the root URLs a client calls; nil where not configured.
type roots struct {
	base    *url.URL // ESB
	gateway *url.URL // GSE 2.0 on the API gateway
	cmdb    *url.URL // bk-cmdb on the API gateway
	job     *url.URL // bk-job on the API gateway
}

// gseRoot names the installation whose GSE tasks the client polls: the GSE
// 2.0 gateway when set, else ESB.
func (r roots) gseRoot() string { return rootName(r.gateway, r.base) }

// jobRoot names the installation whose JOB jobs the client polls: the
// bk-job gateway when set, else ESB.
func (r roots) jobRoot() string { return rootName(r.job, r.base) }

// rootName is the first of us that is set, as a string.
func rootName(us ...*url.URL) string {
	for _, u := range us {
		if u != nil {
			return u.String()
		}
	}
	return ""
}

// roots parses the roots cfg names: the GSE 2.0, bk-cmdb and bk-job
// gateways, and ESB, which is required unless the GSE gateway is set.
func (cfg Config) roots() (r roots, err error) {
	if cfg.GatewayURL != "" {
		if r.gateway, err = ParseGatewayURL(cfg.GatewayURL); err != nil {
			return r, err
		}
	}
	if r.cmdb, err = parseNamedGatewayURL("CMDB", cfg.CMDBGatewayURL); err != nil {
		return r, err
	}
	if r.job, err = parseNamedGatewayURL("JOB", cfg.JobGatewayURL); err != nil {
		return r, err
	}
	if cfg.Endpoint != "" || r.gateway == nil {
		if r.base, err = ParseEndpoint(cfg.Endpoint); err != nil {
			return r, err
		}
	}
	return r, nil
}

// validate checks the credentials and budgets of cfg.
func (cfg Config) validate() error {
	if err := cfg.checkCredentials(); err != nil {
		return err
	}
	if cfg.MaxRetries < 0 {
		return errors.New("max retries must not be negative")
	}
	if cfg.RateLimit < 0 {
		return errors.New("the rate limit must not be negative")
	}
	return nil
}

// newTransport is a fresh connection pool (never http.DefaultTransport) with
// the TLS settings of cfg.
func newTransport(cfg Config) (*http.Transport, error) {
	transport := cleanhttp.DefaultPooledTransport()
	// Terraform calls up to -parallelism (10) resources at once, and batch
	// pollers run beside them; the default keeps GOMAXPROCS+1 idle connections,
	// so past that every burst would dial (and shake hands over TLS) again.
	transport.MaxIdleConnsPerHost = 32
	if cfg.InsecureSkipVerify || cfg.CACertPEM != "" {
		tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in
		if cfg.CACertPEM != "" {
			var err error
			if tlsCfg.RootCAs, err = CACertPool(cfg.CACertPEM); err != nil {
				return nil, err
			}
		}
		transport.TLSClientConfig = tlsCfg
	}
	return transport, nil
}

// newClient wires a Client of cfg: its credentials as sent, its logger, its
// services and the batcher of its operate calls.
func newClient(cfg Config, r roots) *Client {
	auth := authArgs{AppCode: cfg.AppCode, AppSecret: cfg.AppSecret, Username: cfg.Username, BkToken: cfg.BkToken, AccessToken: cfg.AccessToken}
	header, _ := json.Marshal(auth)
	credential := auth.credentialKind()
	auth.AccessToken, auth.SupplierAccount = "", cfg.SupplierAccount
	body, _ := json.Marshal(auth)

	c := &Client{
		base: r.base, gateway: r.gateway, cmdb: r.cmdb, job: r.job, tenant: cfg.TenantID, bodyAuth: body, headerAuth: string(header),
		userAgent:  orString(cfg.UserAgent, "terraform-provider-gse"),
		poll:       newBackoff(orDefault(cfg.PollInitial, defaultPollInitial), orDefault(cfg.PollMax, defaultPollMax)).withMemory(newPollMemory(cfg.PaceDir, r.gseRoot()+"|task")),
		jobPoll:    newBackoff(orDefault(cfg.PollInitial, defaultPollInitial), orDefault(cfg.PollMax, defaultPollMax)).withMemory(newPollMemory(cfg.PaceDir, r.jobRoot()+"|job")),
		redact:     newRedactor(cfg.secrets()...),
		credential: credential,
		maxRetries: cfg.MaxRetries,
	}
	for root, u := range map[Root]*url.URL{RootESB: r.base, RootGateway: r.gateway, RootCMDBGateway: r.cmdb, RootJobGateway: r.job} {
		if u != nil {
			c.pacers[root] = sharedPacer(cfg, u.String())
		}
	}
	var log Logger = nopLogger{}
	if cfg.Logger != nil {
		log = cfg.Logger
	}
	c.log = redactingLogger{log, c.redact}
	c.common.client = c
	c.Proc, c.Job, c.Cluster, c.CMDB = (*ProcService)(&c.common), (*JobService)(&c.common), (*ClusterService)(&c.common), (*CMDBService)(&c.common)
	fam := esbOperate
	if r.gateway != nil {
		fam = gatewayOperate
	}
	c.ops = newBatcher(c, fam, cfg.BatchWindow)
	return c
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

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// checkCredentials requires an access token, or an app (code and secret)
// with a user (username or bk_token).
func (cfg Config) checkCredentials() error {
	if cfg.AccessToken != "" {
		return nil
	}
	if cfg.AppCode == "" || cfg.AppSecret == "" {
		return errors.New("app code and app secret (or an access token) are required")
	}
	if cfg.Username == "" && cfg.BkToken == "" {
		return errors.New("one of username or bk_token is required")
	}
	return nil
}

// authArgs are the credentials as sent: in the X-Bkapi-Authorization header,
// and on ESB in every body too.
type authArgs struct {
	AppCode         string `json:"bk_app_code,omitempty"`
	AppSecret       string `json:"bk_app_secret,omitempty"`
	Username        string `json:"bk_username,omitempty"`
	BkToken         string `json:"bk_token,omitempty"`
	AccessToken     string `json:"access_token,omitempty"`
	SupplierAccount string `json:"bk_supplier_account,omitempty"`
}

// credentialKind names the credentials the client sends, for authentication errors.
func (a authArgs) credentialKind() string {
	switch {
	case a.AccessToken != "":
		return "access_token"
	case a.BkToken != "":
		return "bk_app_code/bk_app_secret with bk_token"
	}
	return "bk_app_code/bk_app_secret with bk_username"
}

// envelope is the reply of every API. Gateway backends may omit result;
// the gateway's own errors add code_name; JOB's carry job_request_id; the
// replies bk-cmdb's apiserver writes itself keep bk-cmdb's native keys,
// bk_error_code and bk_error_msg, even through the gateway (its http.go
// parseResponse renames only what it proxies).
type envelope struct {
	Result       *bool           `json:"result"`
	Code         int             `json:"code"`
	CodeName     string          `json:"code_name"`
	Message      string          `json:"message"`
	Data         json.RawMessage `json:"data"`
	RequestID    string          `json:"request_id"`
	JobRequestID string          `json:"job_request_id"`
	BkErrorCode  int             `json:"bk_error_code"`
	BkErrorMsg   string          `json:"bk_error_msg"`
	// Permission is what an IAM refusal (9900403) says the user lacks;
	// bk-cmdb's filters send null. Kept raw: a permission of another shape
	// must not make the reply unreadable (iamPermission).
	Permission json.RawMessage `json:"permission"`
}

// decodeEnvelope parses a reply body.
func decodeEnvelope(raw []byte) (envelope, error) {
	var env envelope
	err := json.Unmarshal(raw, &env)
	if env.Code == 0 && env.BkErrorCode != 0 {
		env.Code, env.Message = env.BkErrorCode, cmp.Or(env.Message, env.BkErrorMsg)
	}
	return env, err
}

// ok reports a reply that accepted the call.
func (e *envelope) ok() bool {
	if e.Result != nil {
		return *e.Result && e.Code == 0
	}
	return e.Code == 0
}

type ctxKey int

const callKey ctxKey = 0

// callInfo travels in the request context so the retry policy and the hooks
// of the retrying client (retry.go) see it.
type callInfo struct {
	api        string
	root       Root
	requestID  string // sent as X-Request-Id
	idempotent bool
	redact     redactor
	credential string // the kind of credentials sent, named in authentication errors
	attempts   int
	// mayHaveActed: an earlier attempt failed after the request may have
	// reached the server (a cut connection, a timeout, a 5xx), so the server
	// may have acted on it.
	mayHaveActed bool
	// inFlight: an attempt left the limiter and its answer has not been
	// seen; when the context ends then, the server may have acted on it.
	inFlight bool
	last     error // why the latest failed attempt failed
	// faults counts the failed attempts retried within maxRetries; refusals
	// for the rate limit are not faults (retry.go).
	faults, maxRetries int
	lastThrottled      bool
	pacer              *pacer
}

// call sends body to family/api on the root that serves it (route) and
// decodes the envelope's data into out. Non-idempotent calls are retried
// only where the request cannot have been acted on (see checkRetry).
func (c *Client) call(ctx context.Context, family, api string, body, out any, idempotent bool) error {
	_, err := c.do(ctx, family, api, body, out, idempotent)
	return err
}

// do is call, and it also returns what the attempts saw.
func (c *Client) do(ctx context.Context, family, api string, body, out any, idempotent bool) (*callInfo, error) {
	target, root := c.route(family, api)
	return c.post(ctx, api, target, root, body, out, idempotent)
}

// post sends body to target, a URL on root ("" when no root serves it), and
// decodes the envelope's data into out; api names the call in errors and
// logs.
func (c *Client) post(ctx context.Context, api, target string, root Root, body, out any, idempotent bool) (*callInfo, error) {
	defer madeCall(ctx)
	rid, _ := uuid.GenerateUUID()
	info := &callInfo{api: api, root: root, requestID: rid, idempotent: idempotent, redact: c.redact, credential: c.credential, maxRetries: c.maxRetries, pacer: c.pacers[root]}
	if target == "" {
		return info, fmt.Errorf("%s: no ESB endpoint is configured (the gateway serves only GSE's APIs)", api)
	}
	req, err := c.request(context.WithValue(ctx, callKey, info), info, target, body)
	if err != nil {
		return info, err
	}
	start := time.Now()
	resp, err := c.send(req, info, start)
	if err != nil {
		return info, err
	}
	defer resp.Body.Close()
	return info, c.check(req.Context(), info, resp, start, out)
}

// request builds the request of the call info describes, its context ctx:
// a GET of the query when body is url.Values, as the gateway routes some
// read APIs (bk-job's get_job_instance_status), a POST of body as JSON
// otherwise, with the common arguments merged in on ESB (the gateways take
// credentials only from the header).
func (c *Client) request(ctx context.Context, info *callInfo, target string, body any) (*retryablehttp.Request, error) {
	method, payload := http.MethodPost, []byte(nil)
	if q, ok := body.(url.Values); ok {
		method, target = http.MethodGet, target+"?"+q.Encode()
	} else {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", info.api, err)
		}
		if info.root == RootESB && len(c.bodyAuth) > 2 {
			payload = mergeObjects(c.bodyAuth, payload)
		}
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, target, payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", info.api, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("X-Bkapi-Authorization", c.headerAuth)
	// The id the gateway and bk-cmdb log (the gateway replaces an
	// X-Bkapi-Request-Id with its own: bk-request-id.lua).
	req.Header.Set("X-Request-Id", info.requestID)
	if c.tenant != "" {
		req.Header.Set("X-Bk-Tenant-Id", c.tenant)
	}
	return req, nil
}

// send sends req through the retrying client (retry.go), whose first
// attempt starts at start. When no attempt was answered it logs the failure
// and says why: the context ended after a failed attempt (InterruptedError),
// the root refused the connection (ConnectError), or the client's error.
func (c *Client) send(req *retryablehttp.Request, info *callInfo, start time.Time) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err == nil {
		return resp, nil
	}
	ctx := req.Context()
	var op *net.OpError
	switch {
	case ctx.Err() != nil && info.last != nil:
		err = c.interrupted(ctx.Err(), info.last)
	case ctx.Err() == nil && errors.As(err, &op) && op.Op == "dial":
		err = &ConnectError{API: info.api, Root: info.root, URL: req.URL.Scheme + "://" + req.URL.Host, Err: err}
	default:
		err = fmt.Errorf("%s: %w", info.api, err)
	}
	c.log.Warn(ctx, "GSE API call failed", map[string]any{"api": info.api, "request_id": info.requestID, "attempts": info.attempts, "elapsed_ms": time.Since(start).Milliseconds(), "error": err.Error()})
	return nil, err
}

// check reads the reply resp to the call sent at start, logs it, and
// returns the error of its status or envelope (attemptError); without one it
// decodes the envelope's data into out, redacted.
func (c *Client) check(ctx context.Context, info *callInfo, resp *http.Response, start time.Time, out any) error {
	raw, readErr := io.ReadAll(resp.Body) // checkRetry buffered it, with the read error of the last attempt
	env, decodeErr := decodeEnvelope(raw)
	fields := map[string]any{"api": info.api, "request_id": info.requestID, "attempts": info.attempts, "http_status": resp.StatusCode, "code": env.Code, "elapsed_ms": time.Since(start).Milliseconds()}
	if env.RequestID != "" {
		fields["server_request_id"] = env.RequestID
	}
	if g := resp.Header.Get("X-Bkapi-Request-Id"); g != "" {
		fields["gateway_request_id"] = g
	}
	c.log.Debug(ctx, "GSE API call", fields)
	if err := attemptError(info, resp, raw, readErr, env, decodeErr); err != nil {
		return err
	}
	if out != nil && len(env.Data) > 0 && string(env.Data) != "null" {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return &ReplyError{API: info.api, HTTPStatus: resp.StatusCode, RequestID: orString(env.RequestID, info.requestID), Attempts: info.attempts,
				Err: fmt.Errorf("decoding data: %w", err), Body: c.redact.String(snippet(env.Data)), MayHaveActed: !info.idempotent}
		}
		c.redact.value(out) // per-host messages and contents may echo the request too
	}
	return nil
}

// attemptError is the error of one attempt's reply, or nil when the server accepted the call.
func attemptError(info *callInfo, resp *http.Response, raw []byte, readErr error, env envelope, decodeErr error) error {
	rid := cmp.Or(env.RequestID, env.JobRequestID, info.requestID)
	if readErr != nil || (decodeErr != nil && resp.StatusCode == http.StatusOK) {
		err := readErr
		if err == nil {
			err = decodeErr
		}
		return &ReplyError{API: info.api, HTTPStatus: resp.StatusCode, RequestID: rid, Attempts: info.attempts, Err: err, Body: info.redact.String(snippet(raw)), MayHaveActed: !info.idempotent}
	}
	if resp.StatusCode == http.StatusOK && env.ok() {
		return nil
	}
	apiErr := &APIError{API: info.api, Root: info.root, HTTPStatus: resp.StatusCode, Code: env.Code, CodeName: env.CodeName,
		Message: info.redact.String(env.Message), RequestID: rid, GatewayRequestID: resp.Header.Get("X-Bkapi-Request-Id"), Attempts: info.attempts,
		Permission: iamPermission(env.Permission)}
	if apiErr.Code == 0 {
		apiErr.Code, _ = strconv.Atoi(resp.Header.Get("X-Bkapi-Error-Code")) // a gateway error whose body is not an envelope
	}
	if m := resp.Header.Get("X-Bkapi-Error-Message"); apiErr.Message == "" && m != "" {
		apiErr.Message = info.redact.String(m)
	}
	if decodeErr != nil && apiErr.Message == "" {
		apiErr.Message = info.redact.String(snippet(raw))
	}
	if apiErr.Kind() == KindAuth {
		apiErr.Credential = info.credential
	}
	return apiErr
}

// orString is s, or def when s is empty.
func orString(s, def string) string {
	if s != "" {
		return s
	}
	return def
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

// snippet is the start of b, for an error.
func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
