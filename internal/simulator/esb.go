package simulator

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ESB's front door, as every ESB family of the simulator (GSE, JOB, JOB v3, CMDB)
// answers: the credentials of a request body, the envelope of a reply, the
// call counts and injected faults around the dispatch of a family's APIs.

// auth is the credentials every ESB request body carries.
type auth struct {
	AppCode     string `json:"bk_app_code"`
	AppSecret   string `json:"bk_app_secret"`
	Username    string `json:"bk_username"`
	BkToken     string `json:"bk_token"`
	AccessToken string `json:"access_token"`
}

// apiError is a failure an API answers with, in its envelope: code and message.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

// badParams is ESB's bad-parameters answer.
func badParams(format string, a ...any) *apiError {
	return &apiError{codeBadParams, fmt.Sprintf(format, a...)}
}

// serve is the part every API shares: count the call, inject faults, check
// the credentials; family prefixes the API name in counts and faults ("job/").
// The reply is made under the lock and written after it, so a delayed reply
// holds up no other request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, family string, dispatch func(api string, raw []byte) (any, *apiError)) {
	raw, _ := io.ReadAll(r.Body)
	s.handle(r, family, r.PathValue("api"), raw, dispatch).write(w, r)
}

func (s *Server) handle(r *http.Request, family, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[family+api]++
	// ESB's order: the router finds the component, validate_request checks
	// the app and the user, the rate limit counts the app, the component runs.
	if s.lacks(family + api) {
		rep := esbError(codeComponentNotFound, "Not found, component class not found, "+family+api)
		rep.noRequestID = true
		return rep
	}
	if rep := s.authenticate(r, raw); rep != nil {
		return *rep
	}
	if refused, _ := s.overQuota(r, raw); refused {
		return s.esbRateLimited(r, raw)
	}
	f := s.takeFault(family + api)
	if f != nil && !f.acts() {
		return f.reply(family+api, raw, reply{}, false)
	}
	rep := s.answer(api, raw, dispatch)
	if f != nil {
		return f.reply(family+api, raw, rep, false)
	}
	return rep
}

// answer is the reply of a request that reaches the API.
func (s *Server) answer(api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	data, err := dispatch(api, raw)
	if err != nil {
		return esbError(err.code, err.msg)
	}
	return reply{status: http.StatusOK, msg: "success", data: data}
}

// authenticate is ESB's validate_request (esb/channel/base.py): the app
// (esb/bkapp/validators.py), then the user (esb/bkauth/validators.py
// UserAuthValidator), each refusal 1306000 COMMON_ERROR with its reason. The
// credentials come from X-Bkapi-Authorization when it is sent, else from the
// body. bk_username alone passes only for apps on the user_auth::skip_user_auth
// whitelist: every app here, unless Options.VerifiedUsersOnly.
func (s *Server) authenticate(r *http.Request, raw []byte) *reply {
	var creds auth
	if h := r.Header.Get("X-Bkapi-Authorization"); h != "" {
		if err := json.Unmarshal([]byte(h), &creds); err != nil {
			rep := esbError(codeBadParams, "Parameters error, request header X-Bkapi-Authorization is not a valid JSON format string")
			rep.noRequestID = true
			return &rep
		}
	} else if err := json.Unmarshal(raw, &creds); err != nil {
		rep := esbError(codeBadParams, "Parameters error, the request body is not a valid JSON format string")
		return &rep
	}
	fail := func(msg string) *reply { rep := esbError(codeESBCommon, msg); return &rep }
	switch {
	case creds.AccessToken != "":
		if s.opts.AccessToken != "" && creds.AccessToken != s.opts.AccessToken {
			return fail("verify access_token failed, please check if the access_token is valid")
		}
		return nil
	case creds.AppCode == "":
		return fail("APP Code [bk_app_code] cannot be empty")
	case s.opts.AppCode != "" && creds.AppCode != s.opts.AppCode:
		return fail(fmt.Sprintf("Invalid APP Code [bk_app_code=%s], please confirm if the APP Code has been registered", creds.AppCode))
	case creds.AppSecret == "":
		return fail("APP Secret [bk_app_secret] cannot be empty")
	case s.opts.AppSecret != "" && creds.AppSecret != s.opts.AppSecret:
		// The typo is ESB's own.
		return fail(fmt.Sprintf("APP Secret verification failed, pelase confirm if the APP Secret and APP Code [bk_app_code=%s] match", creds.AppCode))
	case creds.BkToken != "":
		return nil
	case creds.Username == "" || s.opts.VerifiedUsersOnly:
		return fail("User authentication failed, please provide a valid user identity, such as bk_token, bk_username")
	}
	return nil
}

// reply is one answer: an envelope, and how a fault delivers it.
type reply struct {
	status, code int
	msg          string
	data         any
	header       http.Header
	delay        time.Duration // hold the reply this long (or until the client gives up)
	cut          bool          // send half the body, then drop the connection
	shape        shape         // which server's body (refusals.go)
	codeName     string        // the gateway's errors: the name of code
	noRequestID  bool          // ESB's refusals before its handler: no request_id
	permission   any           // JOB's IAM refusals: what the user lacks (job_limits.go)
}

func (rep reply) write(w http.ResponseWriter, r *http.Request) {
	if rep.delay > 0 {
		t := time.NewTimer(rep.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up; the work is done all the same
		}
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if !rep.cut {
		writeEnvelope(w, rep)
		return
	}
	var buf bytes.Buffer
	writeEnvelope(&bufWriter{h: w.Header(), b: &buf}, rep)
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	w.WriteHeader(rep.status)
	_, _ = w.Write(buf.Bytes()[:buf.Len()/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler) // net/http closes the connection mid-body
}

// bufWriter renders a reply into a buffer, to be sent cut short.
type bufWriter struct {
	h http.Header
	b *bytes.Buffer
}

func (w *bufWriter) Header() http.Header { return w.h }

func (w *bufWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

func (w *bufWriter) WriteHeader(int) {}

func writeEnvelope(w http.ResponseWriter, rep reply) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	w.Header().Set("Content-Type", "application/json")
	var env map[string]any
	switch rep.shape {
	case shapeGateway:
		w.Header().Set("X-Bkapi-Error-Code", fmt.Sprint(rep.code))
		w.Header().Set("X-Bkapi-Error-Message", rep.msg)
		env = map[string]any{"code": rep.code, "code_name": rep.codeName, "message": rep.msg, "result": false, "data": nil}
	case shapeCMDBFilter:
		env = map[string]any{"result": false, "bk_error_code": rep.code, "bk_error_msg": rep.msg, "permission": nil}
		if rep.code == codeCMDBNoAuthItem {
			env["data"] = nil // metadata.Response; the limiter writes a bare BaseResp
		}
	case shapeBackend:
		env = map[string]any{"code": rep.code, "message": rep.msg, "data": rep.data}
	case shapeJob:
		env = jobEnvelope(rep, id)
	default:
		env = map[string]any{"result": rep.code == 0 && rep.status == http.StatusOK, "code": rep.code, "message": rep.msg, "data": rep.data}
		if !rep.noRequestID {
			env["request_id"] = hex.EncodeToString(id[:])
		}
	}
	w.WriteHeader(rep.status)
	_ = json.NewEncoder(w).Encode(env)
}
