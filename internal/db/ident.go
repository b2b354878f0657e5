package db

import "fmt"

// Ident returns name, a table or column name that code puts into SQL text
// (a core package working on an app's tables), after checking that it is a
// plain lower-case identifier: letters, digits and underscores, not
// starting with a digit. Anything else panics: such names come from the
// program, never from input, so a bad one is a bug found at start.
func Ident(name string) string {
	ok := name != "" && len(name) <= 63
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			ok = false
		}
	}
	if !ok {
		panic(fmt.Sprintf("db: %q is not a plain SQL identifier", name))
	}
	return name
}
