package checkout_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tutti-dev/tutti/internal/checkout"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		cur  checkout.Currency
		want int64
		err  error
	}{
		{"45", "usd", 4500, nil},
		{"45.5", "usd", 4550, nil},
		{"45.50", "usd", 4550, nil},
		{" $45.50 ", "usd", 4550, nil},
		{"45.50 USD", "usd", 4550, nil},
		{"usd 45", "usd", 4500, nil},
		{"€ 12,50", "eur", 1250, nil},
		{"12,5", "eur", 1250, nil},
		{"1,250", "usd", 125000, nil},
		{"1,250.00", "usd", 125000, nil},
		{"1.250,00", "eur", 125000, nil},
		{"1 250,50", "eur", 125050, nil},
		{"1\u00a0250,50", "eur", 125050, nil},
		{"1'250.50", "chf", 125050, nil},
		{"1.250.000", "eur", 125000000, nil},
		{"0", "usd", 0, nil},
		{".5", "usd", 0, checkout.ErrSyntax},
		{"-12.50", "usd", -1250, nil},
		{"-$12.50", "usd", -1250, nil},
		{"\u221212.50", "usd", -1250, nil},
		{"12.505", "usd", 0, checkout.ErrDecimals},
		{"1.250", "usd", 0, checkout.ErrDecimals},
		{"", "usd", 0, checkout.ErrEmpty},
		{"  $ ", "usd", 0, checkout.ErrEmpty},
		{"-", "usd", 0, checkout.ErrEmpty},
		{"abc", "usd", 0, checkout.ErrSyntax},
		{"1e3", "usd", 0, checkout.ErrSyntax},
		{"+5", "usd", 500, nil},
		{"+-5", "usd", 0, checkout.ErrSyntax},
		{"--5", "usd", 0, checkout.ErrSyntax},
		{"0x10", "usd", 0, checkout.ErrSyntax},
		{"1.2.3,4", "eur", 123_40, nil},
		{"92233720368547758.07", "usd", math.MaxInt64, nil},
		{"92233720368547758.08", "usd", 0, checkout.ErrRange},
		{"99999999999999999999999", "usd", 0, checkout.ErrRange},
		// Other minor units: none for the yen, three for the dinar.
		{"1250", "jpy", 1250, nil},
		{"¥1,250", "jpy", 1250, nil},
		{"1250.5", "jpy", 0, checkout.ErrDecimals},
		{"1.250", "bhd", 1250, nil},
		{"1.25", "bhd", 1250, nil},
		{"1,250", "bhd", 1250000, nil},
		{"1.2505", "bhd", 0, checkout.ErrDecimals},
		// No currency: two decimals, a dollar sign allowed.
		{"$45.5", "", 4550, nil},
	} {
		got, err := checkout.Parse(c.in, c.cur)
		if c.err != nil {
			if !errors.Is(err, c.err) || !checkout.IsParseError(err) {
				t.Errorf("Parse(%q, %s) = %v, %v; want error %v", c.in, c.cur, got, err, c.err)
			}
			continue
		}
		if err != nil || got != checkout.Of(c.want, c.cur) {
			t.Errorf("Parse(%q, %s) = %v, %v; want %d", c.in, c.cur, got, err, c.want)
		}
	}
}

func TestParseNonNegative(t *testing.T) {
	if _, err := checkout.ParseNonNegative("-1", "usd"); !errors.Is(err, checkout.ErrNegative) {
		t.Errorf("got %v; want ErrNegative", err)
	}
	if m, err := checkout.ParseNonNegative("0", "usd"); err != nil || !m.IsZero() {
		t.Errorf("got %v, %v; want 0", m, err)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		m                   checkout.Money
		decimal, str, price string
	}{
		{checkout.Of(4550, "usd"), "45.50", "45.50 USD", "45.50 USD"},
		{checkout.Of(5, "usd"), "0.05", "0.05 USD", "0.05 USD"},
		{checkout.Of(0, "usd"), "0.00", "0.00 USD", "Free"},
		{checkout.Of(0, ""), "0.00", "0.00", "0.00"},
		{checkout.Of(-305, "eur"), "-3.05", "-3.05 EUR", "-3.05 EUR"},
		{checkout.Of(1250, "jpy"), "1250", "1250 JPY", "1250 JPY"},
		{checkout.Of(1250, "bhd"), "1.250", "1.250 BHD", "1.250 BHD"},
		{checkout.Of(7, "bhd"), "0.007", "0.007 BHD", "0.007 BHD"},
		{checkout.Of(math.MinInt64, "usd"), "-92233720368547758.08", "-92233720368547758.08 USD", "-92233720368547758.08 USD"},
	} {
		if got := c.m.Decimal(); got != c.decimal {
			t.Errorf("%#v.Decimal() = %q; want %q", c.m, got, c.decimal)
		}
		if got := c.m.String(); got != c.str {
			t.Errorf("%#v.String() = %q; want %q", c.m, got, c.str)
		}
		if got := c.m.Price(); got != c.price {
			t.Errorf("%#v.Price() = %q; want %q", c.m, got, c.price)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, cur := range []checkout.Currency{"usd", "jpy", "bhd", "eur", ""} {
		for _, v := range []int64{0, 1, 9, 10, 99, 100, 101, 4550, -1, -4550, 123456789, math.MaxInt64, math.MinInt64 + 1} {
			m := checkout.Of(v, cur)
			for _, s := range []string{m.Decimal(), m.String()} {
				if got, err := checkout.Parse(s, cur); err != nil || got != m {
					t.Errorf("Parse(%q, %q) = %v, %v; want %v", s, cur, got, err, m)
				}
			}
		}
	}
}

func TestArithmetic(t *testing.T) {
	a, b := checkout.Of(4500, "usd"), checkout.Of(1550, "usd")
	if s, err := a.Add(b); err != nil || s != checkout.Of(6050, "usd") {
		t.Errorf("Add = %v, %v; want 60.50 USD", s, err)
	}
	if s, err := a.Sub(b); err != nil || s != checkout.Of(2950, "usd") {
		t.Errorf("Sub = %v, %v; want 29.50 USD", s, err)
	}
	if s, err := b.Mul(3); err != nil || s != checkout.Of(4650, "usd") {
		t.Errorf("Mul = %v, %v; want 46.50 USD", s, err)
	}
	if s, err := checkout.Of(4599, "usd").Percent(15); err != nil || s != checkout.Of(689, "usd") {
		t.Errorf("Percent = %v, %v; want 6.89 USD (toward zero)", s, err)
	}
	if _, err := a.Add(checkout.Of(1, "eur")); !errors.Is(err, checkout.ErrMixed) {
		t.Errorf("usd + eur: %v; want ErrMixed", err)
	}
	if _, err := a.Sub(checkout.Of(1, "jpy")); !errors.Is(err, checkout.ErrMixed) {
		t.Errorf("usd - jpy: %v; want ErrMixed", err)
	}
	big := checkout.Of(math.MaxInt64, "usd")
	for name, f := range map[string]func() (checkout.Money, error){
		"max + 1":   func() (checkout.Money, error) { return big.Add(checkout.Of(1, "usd")) },
		"min - 1":   func() (checkout.Money, error) { return checkout.Of(math.MinInt64, "usd").Sub(checkout.Of(1, "usd")) },
		"0 - min":   func() (checkout.Money, error) { return checkout.Of(0, "usd").Sub(checkout.Of(math.MinInt64, "usd")) },
		"max * 2":   func() (checkout.Money, error) { return big.Mul(2) },
		"min * -1":  func() (checkout.Money, error) { return checkout.Of(math.MinInt64, "usd").Mul(-1) },
		"max % 200": func() (checkout.Money, error) { return big.Percent(200) },
	} {
		if m, err := f(); !errors.Is(err, checkout.ErrRange) {
			t.Errorf("%s = %v, %v; want ErrRange", name, m, err)
		}
	}
}

func TestCurrency(t *testing.T) {
	for in, want := range map[string]checkout.Currency{"usd": "usd", " EUR ": "eur", "Jpy": "jpy"} {
		if got, err := checkout.ParseCurrency(in); err != nil || got != want {
			t.Errorf("ParseCurrency(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "dollars", "us", "XXX", "ZZZ"} {
		if got, err := checkout.ParseCurrency(in); err == nil {
			t.Errorf("ParseCurrency(%q) = %q; want an error", in, got)
		}
	}
	for c, want := range map[checkout.Currency]int{"usd": 2, "eur": 2, "jpy": 0, "bhd": 3, "kwd": 3, "": 2} {
		if got := c.Digits(); got != want {
			t.Errorf("%q.Digits() = %d; want %d", c, got, want)
		}
	}
	var c checkout.Currency
	if err := c.Scan([]byte("gbp")); err != nil || c != "gbp" || c.Code() != "GBP" {
		t.Errorf("Scan = %q, %v; want gbp", c, err)
	}
	if err := c.Scan(42); err == nil {
		t.Error("Scan(42): no error")
	}
}

// FuzzParse: whatever is typed, Parse answers a refusal of its own or an
// amount that formats and parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"45", "45.50", "1,250.00", "1.250,00", "€ 12,50", "-3", "¥1,250", "1.250", "99999999999999999999", "1 250,5"} {
		f.Add(s, "usd")
		f.Add(s, "jpy")
		f.Add(s, "bhd")
	}
	f.Fuzz(func(t *testing.T, s, cur string) {
		c := checkout.Currency(cur)
		m, err := checkout.Parse(s, c)
		if err != nil {
			if !checkout.IsParseError(err) {
				t.Fatalf("Parse(%q, %q): %v is not a parse error", s, cur, err)
			}
			return
		}
		if m.Currency != c {
			t.Fatalf("Parse(%q, %q) = %v: currency changed", s, cur, m)
		}
		back, err := checkout.Parse(m.Decimal(), c)
		if err != nil || back != m {
			t.Fatalf("Parse(%q, %q) = %v; its Decimal %q parses to %v, %v", s, cur, m, m.Decimal(), back, err)
		}
	})
}
