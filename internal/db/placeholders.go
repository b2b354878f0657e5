package db

import "strings"

// Params is n placeholders for an IN list: "?,?,?".
func Params(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// Values is rows tuples of cols placeholders each, for a multi-row INSERT:
// "(?,?),(?,?)".
func Values(rows, cols int) string {
	return strings.TrimSuffix(strings.Repeat("("+Params(cols)+"),", rows), ",")
}
