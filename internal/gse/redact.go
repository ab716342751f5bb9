package gse

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
)

// redactedMark replaces a secret in every text the client returns or logs.
const redactedMark = "[redacted]"

// minSecret is the shortest secret redacted: a shorter one would mangle every
// text it occurs in, and is no secret worth keeping.
const minSecret = 4

// redactor removes configured secrets from text. A server that echoes the
// request in its error message (some ESB components do) would otherwise put
// the app secret or a token into an error or a log line. Secrets are matched
// as sent and as a JSON encoder may escape them inside a string. Replies are
// decoded as received and redacted afterwards (messages, snippets, every
// string of the decoded data): redacting the raw JSON could break its syntax.
type redactor struct{ r *strings.Replacer }

func newRedactor(secrets ...string) redactor {
	var pairs []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minSecret && !seen[s] {
			seen[s] = true
			pairs = append(pairs, s, redactedMark)
		}
	}
	for _, s := range secrets {
		add(s)
		for _, html := range []bool{true, false} { // Go escapes <, > and & by default; others do not
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if enc.Encode(s) == nil {
				add(strings.TrimSuffix(strings.TrimSuffix(buf.String(), "\n"), `"`)[1:])
			}
		}
	}
	if len(pairs) == 0 {
		return redactor{}
	}
	return redactor{strings.NewReplacer(pairs...)}
}

func (r redactor) String(s string) string {
	if r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// value redacts every string reachable from v, a pointer to decoded data.
func (r redactor) value(v any) {
	if r.r != nil {
		r.walk(reflect.ValueOf(v))
	}
}

func (r redactor) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() == reflect.String {
				v.Set(reflect.ValueOf(r.String(e.String())))
				return
			}
			r.walk(e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(r.String(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				r.walk(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			r.walk(e)
			v.SetMapIndex(k, e)
		}
	}
}

// Logger receives one line per API call and per retry. Fields never hold
// secrets: the configured ones are redacted even where a server echoes them.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Warn(ctx context.Context, msg string, fields map[string]any)
}

type nopLogger struct{}

func (nopLogger) Debug(context.Context, string, map[string]any) {}
func (nopLogger) Warn(context.Context, string, map[string]any)  {}

// redactingLogger removes the configured secrets from every message and string field.
type redactingLogger struct {
	next   Logger
	redact redactor
}

func (l redactingLogger) clean(msg string, fields map[string]any) (string, map[string]any) {
	for k, v := range fields {
		if s, ok := v.(string); ok {
			fields[k] = l.redact.String(s)
		}
	}
	return l.redact.String(msg), fields
}

func (l redactingLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	msg, fields = l.clean(msg, fields)
	l.next.Debug(ctx, msg, fields)
}

func (l redactingLogger) Warn(ctx context.Context, msg string, fields map[string]any) {
	msg, fields = l.clean(msg, fields)
	l.next.Warn(ctx, msg, fields)
}
