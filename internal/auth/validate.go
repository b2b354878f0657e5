package auth

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	tmail "github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/text"
)

// Limits on account fields.
const (
	MaxUsername    = 30
	MinPassword    = 8
	MaxPassword    = 256
	MaxEmail       = 254
	MaxDisplayName = 50
	MaxBio         = 500
)

// Signup is what a new account is made from.
type Signup struct {
	Username, Email, Password string
}

// Validate trims the input and returns a message per bad field (empty: valid).
func (in *Signup) Validate() map[string]string {
	f := map[string]string{}
	in.Username = strings.TrimSpace(in.Username)
	in.Email = strings.TrimSpace(in.Email)
	if msg := CheckUsername(in.Username); msg != "" {
		f["username"] = msg
	}
	if msg := CheckAccountEmail(in.Email); msg != "" {
		f["email"] = msg
	}
	if msg := CheckPasswordRules(in.Password); msg != "" {
		f["password"] = msg
	}
	return f
}

// CheckUsername returns why name is not a valid username, or "".
// Usernames are 1-30 characters of A-Z, a-z, 0-9 and _.
func CheckUsername(name string) string {
	if name == "" {
		return "Choose a username."
	}
	if len(name) > MaxUsername {
		return "At most 30 characters, please."
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return "Use only letters A-Z, digits and _."
		}
	}
	return ""
}

// UsernameKey is the case-insensitive form under which usernames are unique.
func UsernameKey(name string) string { return strings.ToLower(name) }

// CheckEmail returns why addr is not a plausible e-mail address, or "".
func CheckEmail(addr string) string {
	if addr == "" {
		return "Enter your e-mail address."
	}
	if len(addr) > MaxEmail || !utf8.ValidString(addr) {
		return "That does not look like an e-mail address."
	}
	for _, r := range addr {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '<' || r == '>' || r == '"' || r == ',' {
			return "That does not look like an e-mail address."
		}
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || a.Name != "" {
		return "That does not look like an e-mail address."
	}
	at := strings.LastIndexByte(addr, '@')
	local, domain := addr[:at], addr[at+1:]
	if local == "" || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return "That does not look like an e-mail address."
	}
	return ""
}

// CheckAccountEmail is CheckEmail for an account's own address: one in the
// .invalid domain, which RFC 2606 reserves for addresses that cannot
// exist, is refused too. The outbox drops their mail, and load rehearsals
// make their runners' accounts with them (and remove them by it).
func CheckAccountEmail(addr string) string {
	if msg := CheckEmail(addr); msg != "" {
		return msg
	}
	if tmail.Undeliverable(addr) { // the outbox's own rule
		return "That address cannot receive mail (.invalid is reserved)."
	}
	return ""
}

// EmailKey is the case-insensitive form under which e-mails are unique.
func EmailKey(addr string) string { return strings.ToLower(strings.TrimSpace(addr)) }

// CheckPasswordRules returns why pw is not an acceptable password, or "".
func CheckPasswordRules(pw string) string {
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPassword:
		return "At least 8 characters, please."
	case n > MaxPassword || len(pw) > 4*MaxPassword:
		return "At most 256 characters, please."
	}
	return ""
}

// Profile is the editable part of an account.
type Profile struct {
	DisplayName, Bio string
	// RemoveAvatar is the settings form's "remove the picture" box, kept
	// when the form comes back refused (the picture itself is not a text).
	RemoveAvatar bool
}

// Profile fields follow the shared text rules (package text).
var (
	displayNameField = text.Field{Name: "The display name", Max: MaxDisplayName}
	bioField         = text.Field{Name: "The bio", Max: MaxBio, Multiline: true}
)

// Validate cleans the profile (package text's rules) and returns a message
// per bad field.
func (p *Profile) Validate() map[string]string {
	f := map[string]string{}
	var msg string
	if p.DisplayName, msg = displayNameField.Clean(p.DisplayName); msg != "" {
		f["display_name"] = msg
	}
	if p.Bio, msg = bioField.Clean(p.Bio); msg != "" {
		f["bio"] = msg
	}
	return f
}
