package tags

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of Token.
const (
	Text    = iota // plain text
	Mention        // @username; Value is the username
	Tag            // #hashtag; Value is its key (lower case)
	Link           // http(s) URL; Value is the URL
)

// Token is a piece of a post's text: plain text, or something shown as a link.
type Token struct {
	Kind  int
	Text  string // as written
	Value string
}

// Parse splits a post's text into plain text, @mentions, #hashtags and
// links, for showing it (each but the text as a link) and for indexing it
// (Tags, Mentions). A mention is @ and 1 to 30 ASCII letters, digits or
// underscores (a username); a hashtag is # and 1 to 50 letters, digits,
// underscores or combining marks, with at least one letter; a link is an
// http(s) URL up to the next space, less the punctuation that ends a
// sentence. Each starts a word: "a@b" and "x#y" are text, and so is a
// mention or tag that runs on into a longer word (an e-mail address).
func Parse(s string) []Token {
	var out []Token
	text := 0 // start of the pending plain text
	flush := func(end int) {
		if end > text {
			out = append(out, Token{Kind: Text, Text: s[text:end]})
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !boundary(s, i) {
			i += size
			continue
		}
		var tok Token
		switch {
		case r == '@':
			if n := wordLen(s[i+1:], isNameRune, 30); n > 0 && !continuesWord(s[i+1+n:]) {
				tok = Token{Kind: Mention, Text: s[i : i+1+n], Value: s[i+1 : i+1+n]}
			}
		case r == '#':
			if n := wordLen(s[i+1:], isTagRune, 50); n > 0 && hasLetter(s[i+1:i+1+n]) && !continuesWord(s[i+1+n:]) {
				tok = Token{Kind: Tag, Text: s[i : i+1+n], Value: strings.ToLower(s[i+1 : i+1+n])}
			}
		case r == 'h' && (strings.HasPrefix(s[i:], "https://") || strings.HasPrefix(s[i:], "http://")):
			if u := linkAt(s[i:]); u != "" {
				tok = Token{Kind: Link, Text: u, Value: u}
			}
		}
		if tok.Text == "" {
			i += size
			continue
		}
		flush(i)
		out = append(out, tok)
		i += len(tok.Text)
		text = i
	}
	flush(len(s))
	return out
}

// Tags returns the distinct hashtag keys of s, in order.
func Tags(s string) []string { return values(s, Tag) }

// Key returns the key of the tag written s (without its #), as Parse
// gives it, and whether s is a tag at all: for a tag named in a URL.
func Key(s string) (string, bool) {
	toks := Parse("#" + s)
	if len(toks) != 1 || toks[0].Kind != Tag {
		return "", false
	}
	return toks[0].Value, true
}

// Mentions returns the distinct mentioned usernames of s (lower case), in order.
func Mentions(s string) []string {
	m := values(s, Mention)
	for i := range m {
		m[i] = strings.ToLower(m[i])
	}
	return dedupe(m)
}

func values(s string, kind int) []string {
	var v []string
	for _, t := range Parse(s) {
		if t.Kind == kind {
			v = append(v, t.Value)
		}
	}
	return dedupe(v)
}

func dedupe(v []string) []string {
	seen := make(map[string]bool, len(v))
	out := v[:0]
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// boundary reports whether a token may start at s[i]: at the start, or after
// a character that is not part of a word (so "a@b" is no mention).
func boundary(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '@' || r == '#' || r == '/')
}

// continuesWord reports whether rest goes on with something that makes the
// token part of a longer word (an e-mail address, a URL path).
func continuesWord(rest string) bool {
	if rest == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return r == '@' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isNameRune(r rune) bool {
	return r < utf8.RuneSelf && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

func isTagRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// wordLen is the byte length of the longest prefix of s made of runes
// accepted by ok, or 0 if that prefix has more than max runes.
func wordLen(s string, ok func(rune) bool, max int) int {
	n, count := 0, 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !ok(r) {
			break
		}
		if count++; count > max {
			return 0
		}
		n += size
	}
	return n
}

// linkAt returns the URL at the start of s: up to the next space, less the
// punctuation that usually ends a sentence rather than a URL.
func linkAt(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '<' || r == '>' || r == '"' })
	if end < 0 {
		end = len(s)
	}
	u := strings.TrimRight(s[:end], ".,:;!?'")
	if strings.HasSuffix(u, ")") && !strings.Contains(u, "(") {
		u = strings.TrimRight(u, ")")
	}
	host := u[strings.Index(u, "//")+2:]
	if host == "" || host[0] == '/' || len(u) > 2000 {
		return ""
	}
	return u
}
