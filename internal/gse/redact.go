package gse

import (
	"bytes"
	"encoding/json"
	"strings"
)

// redactedMark replaces a secret in every text the client returns or logs.
const redactedMark = "[redacted]"

// redactor removes configured secrets from text. A server that echoes the
// request in its error message (some ESB components do) would otherwise put
// the app secret or a token into an error or a log line. Secrets are matched
// as sent and as a JSON encoder may escape them inside a string.
type redactor struct{ r *strings.Replacer }

func newRedactor(secrets ...string) redactor {
	var pairs []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
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

func (r redactor) Bytes(b []byte) []byte {
	if r.r == nil {
		return b
	}
	return []byte(r.r.Replace(string(b)))
}
