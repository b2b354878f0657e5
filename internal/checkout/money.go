package checkout

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	xcurrency "golang.org/x/text/currency"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Currency is an ISO 4217 code as stored and as the gateways take it, in
// lower case ("usd"); Code gives it in upper case for people. Its minor
// unit (cents for usd, none for jpy, fils for bhd: Digits) comes from
// CLDR through golang.org/x/text/currency.
type Currency string

// ParseCurrency reads an ISO 4217 code in either case ("usd", "EUR").
func ParseCurrency(s string) (Currency, error) {
	u, err := xcurrency.ParseISO(strings.TrimSpace(s))
	if err != nil || u == xcurrency.XXX {
		return "", errs.E(errs.Invalid, "Give a currency as its three-letter code, such as USD or EUR.")
	}
	return Currency(strings.ToLower(u.String())), nil
}

// Code is c in upper case, as people read it ("USD").
func (c Currency) Code() string { return strings.ToUpper(string(c)) }

// Digits is how many decimals c's minor unit has: 2 for usd, 0 for jpy,
// 3 for bhd; 2 for a currency unknown to CLDR (and for none).
func (c Currency) Digits() int {
	u, err := xcurrency.ParseISO(string(c))
	if err != nil {
		return 2
	}
	scale, _ := xcurrency.Standard.Rounding(u)
	return scale
}

// Value stores c as its code in lower case.
func (c Currency) Value() (driver.Value, error) { return string(c), nil }

// Scan reads a stored code.
func (c *Currency) Scan(v any) error {
	switch v := v.(type) {
	case string:
		*c = Currency(v)
	case []byte:
		*c = Currency(v)
	default:
		return fmt.Errorf("checkout: currency from %T", v)
	}
	return nil
}

// Money is an exact amount: Minor units (cents) of Currency. Amounts are
// never floats; arithmetic refuses to mix currencies (ErrMixed) and to
// overflow (ErrRange).
type Money struct {
	Minor    int64    `json:"minor"`
	Currency Currency `json:"currency"`
}

// Of is minor units of c.
func Of(minor int64, c Currency) Money { return Money{Minor: minor, Currency: c} }

// Errors of arithmetic, and of Parse (each of kind Invalid, with a safe
// message that an app may replace with its own words).
var (
	ErrMixed    = errs.E(errs.Invalid, "Amounts in different currencies cannot be added up.")
	ErrRange    = errs.E(errs.Invalid, "The amount is too large.")
	ErrEmpty    = errs.E(errs.Invalid, "Give an amount.")
	ErrSyntax   = errs.E(errs.Invalid, "Give the amount as a number, such as 45 or 45.50.")
	ErrDecimals = errs.E(errs.Invalid, "The amount has more decimals than its currency has.")
	ErrNegative = errs.E(errs.Invalid, "The amount cannot be negative.")
)

// Add is m + o, both in one currency.
func (m Money) Add(o Money) (Money, error) {
	if m.Currency != o.Currency {
		return Money{}, fmt.Errorf("%w: %s + %s", ErrMixed, m.Currency.Code(), o.Currency.Code())
	}
	s := m.Minor + o.Minor
	if (s > m.Minor) != (o.Minor > 0) {
		return Money{}, ErrRange
	}
	return Money{s, m.Currency}, nil
}

// Sub is m - o, both in one currency.
func (m Money) Sub(o Money) (Money, error) {
	if o.Minor == math.MinInt64 {
		return Money{}, ErrRange
	}
	return m.Add(Money{-o.Minor, o.Currency})
}

// Mul is m times n (a quantity).
func (m Money) Mul(n int64) (Money, error) {
	if n == 0 || m.Minor == 0 {
		return Money{0, m.Currency}, nil
	}
	p := m.Minor * n
	if p/n != m.Minor || (m.Minor == -1 && n == math.MinInt64) || (n == -1 && m.Minor == math.MinInt64) {
		return Money{}, ErrRange
	}
	return Money{p, m.Currency}, nil
}

// Percent is percent % of m, rounded toward zero (a discount of a price,
// as SQL's integer division works it out: price * percent / 100).
func (m Money) Percent(percent int64) (Money, error) {
	p, err := m.Mul(percent)
	if err != nil {
		return Money{}, err
	}
	return Money{p.Minor / 100, m.Currency}, nil
}

// IsZero says m is no money.
func (m Money) IsZero() bool { return m.Minor == 0 }

// Decimal is m's number alone in major units, with the currency's decimals
// and no grouping: "1250.50", "-3.05", "1250" (jpy), "1.250" (bhd). It is
// what a form's field shows, and Parse reads it back.
func (m Money) Decimal() string {
	d := m.Currency.Digits()
	neg := m.Minor < 0
	u := uint64(m.Minor)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	if d > 0 {
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// String is m for people: "45.00 USD" ("45.00" with no currency).
func (m Money) String() string {
	if m.Currency == "" {
		return m.Decimal()
	}
	return m.Decimal() + " " + m.Currency.Code()
}

// Price is m as a price shown to a buyer: String, or "Free" for nothing.
func (m Money) Price() string {
	if m.Minor == 0 && m.Currency != "" {
		return "Free"
	}
	return m.String()
}

// Parse reads an amount of c typed by a person: "45", "45.5", "45.50",
// with a decimal comma ("45,50"), grouped thousands ("1,250.00",
// "1.250,00", "1 250,50", "1'250.50"), a leading minus or plus, and c's code or
// symbol before or after ("$45", "45 USD", "€ 12,50"). A lone comma
// separates decimals when one or two digits follow it ("12,5") and groups
// thousands otherwise ("1,250"); dots alone are decimals when one is
// there ("1.5") and group thousands when several are ("1.250.000"). More
// decimals than c has are refused (ErrDecimals), not rounded.
func Parse(s string, c Currency) (Money, error) {
	s = strings.TrimSpace(s)
	s = trimUnit(s, c)
	neg := false
	if r := strings.TrimPrefix(s, "-"); r != s {
		neg, s = true, strings.TrimSpace(trimUnit(strings.TrimSpace(r), c))
	} else if r := strings.TrimPrefix(s, "\u2212"); r != s { // a minus sign
		neg, s = true, strings.TrimSpace(trimUnit(strings.TrimSpace(r), c))
	} else if r := strings.TrimPrefix(s, "+"); r != s {
		s = strings.TrimSpace(trimUnit(strings.TrimSpace(r), c))
	}
	if s == "" {
		return Money{}, ErrEmpty
	}
	s = separators(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !digits(whole) || !digits(frac) {
		return Money{}, ErrSyntax
	}
	d := c.Digits()
	if len(frac) > d {
		return Money{}, ErrDecimals
	}
	frac += strings.Repeat("0", d-len(frac))
	n, err := strconv.ParseUint(whole+frac, 10, 64)
	if err != nil || n > math.MaxInt64 {
		return Money{}, ErrRange
	}
	v := int64(n)
	if neg {
		v = -v
	}
	return Money{v, c}, nil
}

// ParseNonNegative is Parse refusing an amount below zero (a price, a
// donation) with ErrNegative.
func ParseNonNegative(s string, c Currency) (Money, error) {
	m, err := Parse(s, c)
	if err == nil && m.Minor < 0 {
		return Money{}, ErrNegative
	}
	return m, err
}

// IsParseError says err is one of Parse's refusals (not a bug).
func IsParseError(err error) bool {
	for _, e := range []error{ErrEmpty, ErrSyntax, ErrDecimals, ErrRange, ErrNegative} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// symbols are the signs people type for the currencies of codes.
var symbols = map[Currency][]string{
	"usd": {"US$", "$"}, "cad": {"CA$", "C$", "$"}, "aud": {"A$", "AU$", "$"}, "nzd": {"NZ$", "$"},
	"eur": {"€"}, "gbp": {"£"}, "jpy": {"¥", "円"}, "chf": {"Fr.", "CHF"}, "sek": {"kr"}, "bhd": {"BD"},
}

// trimUnit drops c's code or one of its symbols from either end of s.
func trimUnit(s string, c Currency) string {
	if c == "" {
		return strings.TrimSpace(strings.TrimPrefix(s, "$"))
	}
	units := symbols[c]
	if len(c) == 3 && letters(string(c)) {
		units = append([]string{c.Code(), string(c)}, units...)
	}
	for _, u := range units {
		if r, ok := strings.CutPrefix(s, u); ok {
			return strings.TrimSpace(r)
		}
		if r, ok := strings.CutSuffix(s, u); ok {
			return strings.TrimSpace(r)
		}
	}
	return s
}

// separators turns an amount typed with a decimal comma ("12,50") or with
// thousands separators ("1,250.00", "1.250,00", "1 250,50", "1.250.000")
// into the dotted form ("12.50", "1250.00", "1250.50", "1250000").
func separators(s string) string {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "'", "", "\u2019", "").Replace(s)
	dot, comma := strings.LastIndex(s, "."), strings.LastIndex(s, ",")
	switch {
	case comma < 0 && strings.Count(s, ".") > 1: // 1.250.000
		return strings.ReplaceAll(s, ".", "")
	case comma < 0:
		return s
	case dot > comma: // 1,250.00
		return strings.ReplaceAll(s, ",", "")
	case dot >= 0: // 1.250,00
		return strings.ReplaceAll(s[:comma], ".", "") + "." + s[comma+1:]
	}
	if n := len(s) - comma - 1; n == 1 || n == 2 {
		return strings.ReplaceAll(s[:comma], ",", "") + "." + s[comma+1:]
	}
	return strings.ReplaceAll(s, ",", "")
}

// digits says s is ASCII digits only ("" too).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// letters says s is ASCII letters only.
func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && (s[i] < 'A' || s[i] > 'Z') {
			return false
		}
	}
	return true
}
