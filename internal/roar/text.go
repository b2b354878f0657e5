package roar

import (
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// MaxLen is the longest roar, in Unicode code points.
const MaxLen = 280

// bodyField is a roar's text rule: package text's rules, 1 to MaxLen code
// points, newlines allowed.
var bodyField = text.Field{Name: "A roar", Min: 1, Max: MaxLen, Multiline: true,
	Empty: "Write something first: an empty roar cannot be posted."}

// CleanBody cleans a roar and checks it (bodyField); a bad one is an
// Invalid error with a message for the field "body".
func CleanBody(s string) (string, error) {
	s, msg := bodyField.Clean(s)
	if msg != "" {
		return "", errs.Fields(map[string]string{"body": msg})
	}
	return s, nil
}
