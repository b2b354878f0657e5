package race

import (
	"fmt"
	"strconv"
	"strings"
)

// Codes are what a race's directors hand out: a discount off the entry's
// price, early access (register before an event opens), or both, each for
// a number of uses or without a limit. A runner applies one code to a hold.

// Code is a discount or early-access code of a race.
type Code struct {
	ID      int64
	Code    string // upper case: what runners type, any case
	Percent int    // off the entry's price
	Early   bool   // registers before an event opens
	MaxUses int    // 0: no limit
	Used    int    // uses claimed: holds and registrations that carry it
}

// MaxCodes is how many codes a race may have.
const MaxCodes = 200

// CodeInput is the codes form as typed.
type CodeInput struct {
	Code, Percent, MaxUses string
	Early                  bool
}

// CleanCode is a code as typed, as stored: upper case, no spaces; "" if
// it cannot be a code (4 to 20 of A-Z, 0-9 and -).
func CleanCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) < 4 || len(s) > 20 {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return ""
		}
	}
	return s
}

// Validate checks a code (fields code, percent, max_uses).
func (in CodeInput) Validate() (Code, map[string]string) {
	f := map[string]string{}
	c := Code{Code: CleanCode(in.Code), Early: in.Early}
	if c.Code == "" {
		f["code"] = "A code is 4 to 20 letters, digits or dashes (SPRING-CLUB)."
	}
	var err error
	if p := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(in.Percent), "%")); p != "" {
		if c.Percent, err = strconv.Atoi(p); err != nil || c.Percent < 0 || c.Percent > 100 {
			f["percent"] = "Give the discount as a whole percent, from 0 to 100."
		}
	}
	if m := strings.TrimSpace(in.MaxUses); m != "" {
		if c.MaxUses, err = strconv.Atoi(m); err != nil || c.MaxUses < 1 || c.MaxUses > MaxCap {
			f["max_uses"] = fmt.Sprintf("Give the number of uses, from 1 to %d, or leave it empty for no limit.", MaxCap)
		}
	}
	if len(f) == 0 && c.Percent == 0 && !c.Early {
		f["percent"] = "Give a discount, tick early access, or both."
	}
	return c, f
}

// discountOf is what a code of percent takes off an entry of price, in
// cents (rounded down: the runner never pays a cent less than said).
func discountOf(price int64, percent int) int64 { return price * int64(percent) / 100 }
