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

// ESB's front door, as every ESB family of the simulator (GSE, JOB, CMDB)
// answers: the credentials of a request body, the envelope of a reply, the
// call counts and injected faults around the dispatch of a family's APIs.

// Codes of ESB's own answers (and the gateway's bad Authorization header).
const (
	codeBadParams     = 1306406
	codeAuth          = 1306401
	codeNoUser        = 1306402
	codeBadAuthHeader = 1640101
)

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
	if refused := s.admit(r, raw, family+api, false); refused != nil {
		return *refused
	}
	f := s.takeFault(family + api)
	if f != nil && !f.acts() {
		return f.reply(raw, reply{})
	}
	rep := s.answer(r, api, raw, dispatch)
	if f != nil {
		return f.reply(raw, rep)
	}
	return rep
}

// answer is the reply of a request that reaches the API.
func (s *Server) answer(r *http.Request, api string, raw []byte, dispatch func(api string, raw []byte) (any, *apiError)) reply {
	var creds auth
	if err := json.Unmarshal(raw, &creds); err != nil {
		return reply{status: http.StatusOK, code: codeBadParams, msg: "the body is not a JSON object: " + err.Error()}
	}
	if err := s.authenticate(r, creds); err != nil {
		return reply{status: http.StatusOK, code: err.code, msg: err.msg}
	}
	data, err := dispatch(api, raw)
	if err != nil {
		return reply{status: http.StatusOK, code: err.code, msg: err.msg}
	}
	return reply{status: http.StatusOK, msg: "success", data: data}
}

func (s *Server) authenticate(r *http.Request, body auth) *apiError {
	creds := body
	if h := r.Header.Get("X-Bkapi-Authorization"); h != "" {
		var hdr auth
		if err := json.Unmarshal([]byte(h), &hdr); err != nil {
			return &apiError{codeBadAuthHeader, "X-Bkapi-Authorization is not a JSON object"}
		}
		if creds.AppCode == "" {
			creds = hdr
		}
	}
	if s.opts.AppCode != "" && (creds.AppCode != s.opts.AppCode || creds.AppSecret != s.opts.AppSecret) {
		return &apiError{codeAuth, "app code or app secret is invalid"}
	}
	if creds.Username == "" && creds.BkToken == "" && creds.AccessToken == "" {
		return &apiError{codeNoUser, "one of bk_username, bk_token or access_token is required"}
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
	noResult     bool          // a gateway reply: no "result" field, success is code 0
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
	if rep.code != 0 {
		w.Header().Set("X-Bkapi-Error-Code", fmt.Sprint(rep.code))
	}
	w.WriteHeader(rep.status)
	env := map[string]any{"code": rep.code, "message": rep.msg, "data": rep.data, "request_id": hex.EncodeToString(id[:])}
	if !rep.noResult {
		env["result"] = rep.code == 0 && rep.status == http.StatusOK
	}
	_ = json.NewEncoder(w).Encode(env)
}
