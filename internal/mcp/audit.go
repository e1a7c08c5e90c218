package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Redacted replaces a secret-looking value in the audit log.
const Redacted = "[REDACTED]"

// Bounds on what one audit line keeps of the arguments.
const (
	auditMaxString    = 4096      // longer strings are cut, with the count of bytes left out
	auditMaxArguments = 256 << 10 // larger redacted arguments are replaced by a note
)

// secretWords are the words of an argument name whose value is never logged; a name is
// split into words at case changes, digits and punctuation ("refreshToken", "API_KEY",
// "x-auth-token"), so "author" or "max_tokens" are not taken for "auth" or "token".
var secretWords = map[string]bool{
	"pass": true, "password": true, "passwd": true, "passphrase": true, "pwd": true,
	"secret": true, "token": true, "auth": true, "authorization": true, "bearer": true,
	"jwt": true, "credential": true, "credentials": true, "cookie": true, "session": true,
	"apikey": true, "privatekey": true, "accesskey": true, "secretkey": true,
	"sessionid": true, "sessid": true, "sessionkey": true, "accountkey": true, "connectionstring": true,
}

// secretPairs are two consecutive words that name a secret.
var secretPairs = map[[2]string]bool{
	{"api", "key"}: true, {"private", "key"}: true, {"access", "key"}: true, {"secret", "key"}: true,
}

// secretSuffixes catch names written as one lower-case word ("accesstoken", "dbpassword").
var secretSuffixes = []string{"token", "secret", "password", "passwd", "apikey"}

// secretKey reports whether an argument name looks like it holds a secret.
func secretKey(name string) bool {
	words := nameWords(name)
	for i, w := range words {
		if secretWords[w] || (i > 0 && secretPairs[[2]string{words[i-1], w}]) {
			return true
		}
		for _, suf := range secretSuffixes {
			if len(w) > len(suf) && strings.HasSuffix(w, suf) {
				return true
			}
		}
	}
	return false
}

// nameWords splits a name into lower-case words: at anything not a letter, at a lower-case
// letter followed by an upper-case one, and before the last capital of a run of capitals
// followed by lower case ("APIKey" is "api", "key").
func nameWords(name string) []string {
	var words []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		if unicode.IsUpper(r) && (unicode.IsLower(prev) ||
			(unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// secretValueREs match string values that look like credentials wherever they appear.
var secretValueREs = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)^\s*(bearer|basic)\s+\S{8,}`),                           // an Authorization header value
		regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), // a JWT
		regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`),                                   // OpenAI/Anthropic-style keys
		regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})`),
		regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`),          // AWS access key ids
		regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),      // Slack tokens
		regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),              // Google API keys
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`),   // PEM private keys
		regexp.MustCompile(`\b[sr]k_(live|test)_[A-Za-z0-9]{16,}`), // Stripe secret and restricted keys
		regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`),              // npm access tokens
		regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}\b`),              // Hugging Face tokens
	}
})

// secretPartREs match the secret part of a string that is not a secret as a whole: the
// credentials of a URL ("postgres://admin:pw@db/x", "https://token@host/"), the key of a
// connection string ("...;AccountKey=...;", "Password=..."), an Authorization header or a
// bearer credential inside a longer text, the value after a secret-named key
// ("password=...", "token: ...", "api_key=..."). Group 2 is replaced; groups 1 and 3 are
// kept.
var secretPartREs = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)([^/\s@"'<>]+)(@)`),
		regexp.MustCompile(`(?i)(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd|ApiKey|SecretKey|AccessKey)\s*=\s*)([^;&\s"']+)()`),
		// An Authorization header written out: what follows it (the scheme and credentials).
		regexp.MustCompile(`(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?)((?:(?:bearer|basic|digest|token|negotiate)\s+)?[^\s"',;&]+)()`),
		// A credential after a scheme word, anywhere in a sentence ("... Bearer abc.def ...").
		regexp.MustCompile(`(?i)(\b(?:bearer|basic)\s+)([A-Za-z0-9._~+/-]*[0-9._~+/-][A-Za-z0-9._~+/-]*=*|[A-Za-z]{20,})()`),
		// A secret-named key and its value: password=..., token: ..., api_key=..., "secret": "..."
		regexp.MustCompile(`(?i)(\b(?:[a-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth|credentials?)["']?\s*[:=]\s*["']?)([^\s"',;&]+)()`),
	}
})

// redactString returns s with its secrets replaced: all of it when it looks like a
// credential, else the secret parts of URLs and connection strings.
func redactString(s string) string {
	if LooksSecret(s) {
		return Redacted
	}
	for _, re := range secretPartREs() {
		s = re.ReplaceAllString(s, "${1}"+Redacted+"${3}")
	}
	return s
}

// LooksSecret reports whether a string value looks like a credential (a bearer token, a JWT, an
// "sk-..." key, a GitHub, AWS, Slack, Google, Stripe, npm or Hugging Face key, a PEM private
// key).
func LooksSecret(s string) bool {
	for _, re := range secretValueREs() {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Redact returns a copy of a decoded JSON value (as produced by encoding/json into any) in
// which the value of every object member whose name looks secret, and every string that looks
// like a credential, is replaced by Redacted, at any depth, and so are the credentials of
// URLs and the keys of connection strings inside strings. Strings longer than 4096 bytes are
// cut, noting how many bytes were left out.
func Redact(v any) any { return redact(v, true) }

// RedactValues is Redact by shape only: member names are not read. It suits documents
// whose member names are not what their values hold, such as a schema, where "password"
// names a property and its value is a subschema, not a secret.
func RedactValues(v any) any { return redact(v, false) }

func redact(v any, byName bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if byName && secretKey(k) {
				out[k] = Redacted
			} else {
				out[k] = redact(e, byName)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redact(e, byName)
		}
		return out
	case string:
		return bound(redactString(v), auditMaxString)
	}
	return v
}

// ArgumentRedactor is implemented by a Provider that knows its tools' arguments better
// than their names tell: the audit log then records RedactArguments(tool, args) instead of
// Redact(args). args is the decoded arguments object (numbers as json.Number); the result
// must be a copy built with Redact and RedactValues.
type ArgumentRedactor interface {
	RedactArguments(tool string, args any) any
}

type auditInvoker struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Via  string `json:"via"`
}

type auditLine struct {
	Time       string       `json:"time"`
	RunID      string       `json:"runId"`
	Invoker    auditInvoker `json:"invoker"`
	Tool       string       `json:"tool"`
	Arguments  any          `json:"arguments"`
	Outcome    string       `json:"outcome"`
	DurationMs float64      `json:"durationMs"`
	// Panic and Stack are set when the outcome is "panic": what the tool panicked with and
	// the stack of the goroutine that panicked.
	Panic string `json:"panic,omitempty"`
	Stack string `json:"stack,omitempty"`
}

// audit writes the audit line of one finished call, if an audit writer is set.
func (s *Server) audit(start time.Time, elapsed time.Duration, req *CallRequest, outcome string, crash *crashed) {
	if s.opts.Audit == nil {
		return
	}
	who := req.Client.Name
	if who == "" {
		who = "unknown"
	}
	var args any
	dec := json.NewDecoder(bytes.NewReader(req.Arguments))
	dec.UseNumber()                           // keep numbers exact
	if err := dec.Decode(&args); err != nil { // cannot happen: validated
		args = map[string]any{}
	}
	if r, ok := s.p.(ArgumentRedactor); ok {
		args = r.RedactArguments(req.Name, args)
	} else {
		args = Redact(args)
	}
	if b, err := marshal(args); err != nil || len(b) > auditMaxArguments {
		args = map[string]any{"jstk/omitted": fmt.Sprintf("arguments of %d bytes after redaction are too large for the audit log", len(b))}
	}
	al := auditLine{
		Time:       start.UTC().Format(time.RFC3339Nano),
		RunID:      req.RunID,
		Invoker:    auditInvoker{Kind: "agent", ID: who, Via: "mcp"},
		Tool:       req.Name,
		Arguments:  args,
		Outcome:    outcome,
		DurationMs: durationMs(elapsed),
	}
	if crash != nil {
		al.Panic, al.Stack = crash.value, crash.stack
	}
	line, err := marshal(al)
	if err != nil {
		s.opts.Logf("mcp: encoding the audit line of run %s: %v", req.RunID, err)
		return
	}
	line = append(line, '\n')
	s.auditMu.Lock()
	defer s.auditMu.Unlock()
	if _, err := s.opts.Audit.Write(line); err != nil {
		s.opts.Logf("mcp: writing the audit line of run %s: %v", req.RunID, err)
	}
}
