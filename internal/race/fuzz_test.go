package race

import (
	"github.com/tutti-dev/tutti/internal/race/races"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/checkout"
)

// The wizards' forms take any input: they never panic, and what they
// accept is within the limits the database and the pages rely on.

func FuzzRaceInput(f *testing.F) {
	f.Add("Spring 10K", "Riverside", "2027-04-10", "Europe/Berlin", "A fast course.", "eur")
	f.Add("", "", "2027-02-30", "Local", "", "XXX")
	f.Add("=cmd", "<script>", "99999-01-01", "../../etc/passwd", strings.Repeat("x", 30000), "usd")
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name, loc, date, tz, desc, cur string) {
		r, errs := RaceInput{Name: name, Location: loc, Date: date, TZ: tz, Description: desc, Currency: cur}.Validate(now)
		if len(errs) > 0 {
			return
		}
		if n := utf8.RuneCountInString(r.Name); n < 3 || n > MaxNameLen || !utf8.ValidString(r.Name) {
			t.Errorf("accepted name %q", r.Name)
		}
		if _, err := time.LoadLocation(r.TZ); err != nil {
			t.Errorf("accepted zone %q", r.TZ)
		}
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil || !slices.Contains(Currencies, r.Currency) {
			t.Errorf("accepted date %q currency %q", r.Date, r.Currency)
		}
		if Slugify(r.Name) == "" || !ValidSlug(Slugify(r.Name)) {
			t.Errorf("slug of %q is %q", r.Name, Slugify(r.Name))
		}
	})
}

func FuzzEventInput(f *testing.F) {
	f.Add("10K", "09:30", "2027-03-01", "12:00", "2027-04-09", "20:00", "45.50", "500")
	f.Add("", "25:00", "2027-03-28", "02:30", "2027-03-28", "02:15", "-1", "0")
	f.Add("x", "24:00", "2027-10-31", "02:30", "2027-10-31", "02:45", "10000.01", "1e9")
	race := &Race{Race: races.Race{Date: "2027-04-10", TZ: "Europe/Berlin"}}
	f.Fuzz(func(t *testing.T, name, start, od, ot, cd, ct, price, places string) {
		e, errs := EventInput{Name: name, StartTime: start, OpensDate: od, OpensTime: ot, ClosesDate: cd, ClosesTime: ct,
			Price: price, Cap: places}.Validate(race)
		if len(errs) > 0 {
			return
		}
		if e.Price < 0 || e.Price > MaxPrice || e.Cap < 1 || e.Cap > MaxCap {
			t.Errorf("accepted price %d, cap %d", e.Price, e.Cap)
		}
		if !e.OpensAt.Before(e.ClosesAt) || e.ClosesAt.After(e.StartsAt) {
			t.Errorf("accepted window %v-%v for a start at %v", e.OpensAt, e.ClosesAt, e.StartsAt)
		}
		if got, msg := parseMoney(checkout.Of(e.Price, race.Currency).Decimal(), race.Currency); msg != "" || got != e.Price {
			t.Errorf("price %d does not read back: %d %q", e.Price, got, msg)
		}
	})
}

func FuzzEntrantInput(f *testing.F) {
	f.Add("Ann", "Lee", "ann@example.com", "1990-05-01", "F", "Oslo", "Bo, +47 1234")
	f.Add("", "=HYPERLINK()", "not-mail", "2030-01-01", "Q", strings.Repeat("é", 200), "")
	f.Fuzz(func(t *testing.T, first, last, email, born, gender, city, emergency string) {
		e, errs := EntrantInput{FirstName: first, LastName: last, Email: email, BirthDate: born, Gender: gender,
			City: city, Emergency: emergency}.Validate(&Race{Race: races.Race{Date: "2027-04-10"}}, func(s string) string {
			if !strings.Contains(s, "@") {
				return "bad"
			}
			return ""
		})
		if len(errs) > 0 {
			return
		}
		for _, s := range []string{e.FirstName, e.LastName, e.City, e.Emergency} {
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 160 {
				t.Errorf("accepted %q", s)
			}
		}
		if e.FirstName == "" || e.LastName == "" || e.Emergency == "" {
			t.Errorf("accepted empty fields: %+v", e)
		}
		if len(NameKey(e.FirstName+" "+e.LastName)) > 4*130 {
			t.Errorf("name key too long")
		}
	})
}

// The extras' forms: a store item's, the donation page's, the store page's
// quantities and the team page's name.
func FuzzExtrasForms(f *testing.F) {
	f.Add("Race shirt", "20", "100", "2500", "", "2", "Zoë's Runners")
	f.Add("", "-1", "1e9", "other", "10000.01", "11", "'''")
	f.Add("=HYPERLINK()", "0.5", "0", "other", "  15.5 ", "-3", "\u202eevil")
	items := []Item{{ID: 1, Name: "Shirt", Price: 2000, Stock: 5}, {ID: 7, Name: "Medal", Price: 0, Stock: 1}}
	f.Fuzz(func(t *testing.T, name, price, stock, choice, other, qty, team string) {
		if it, errs := (ItemInput{Name: name, Price: price, Stock: stock}).Validate("eur"); len(errs) == 0 {
			if n := utf8.RuneCountInString(it.Name); n < 1 || n > MaxNameLen || it.Price < 0 || it.Price > MaxPrice ||
				it.Stock < 0 || it.Stock > MaxStock {
				t.Errorf("accepted item %+v", it)
			}
		}
		if v, msg := ParseDonation(choice, other, "eur"); msg == "" && (v < 0 || v > MaxDonation) {
			t.Errorf("accepted donation %d from %q %q", v, choice, other)
		}
		want, errs := ParseQuantities(items, func(k string) string {
			if k == "qty-7" {
				return qty
			}
			return ""
		})
		for id, n := range want {
			if _, ok := (&Race{Items: items}).Item(id); !ok || n < 1 || n > MaxItemQty {
				t.Errorf("quantity %d of item %d from %q", n, id, qty)
			}
		}
		if len(errs) > 0 && len(want) > 0 {
			t.Errorf("quantities %v and errors %v at once", want, errs)
		}
		if n, msg := CleanTeam(team); msg == "" && n != "" && (TeamKey(n) == "" || utf8.RuneCountInString(n) > 60) {
			t.Errorf("accepted team %q (key %q)", n, TeamKey(n))
		}
	})
}

// The codes form and a code as a runner types it.
func FuzzCodeInput(f *testing.F) {
	f.Add("club-10", "10", "3", true)
	f.Add("", "101", "-1", false)
	f.Add("ÄBC-1", "10%", "1e6", true)
	f.Fuzz(func(t *testing.T, code, percent, uses string, early bool) {
		if c := CleanCode(code); c != "" && (c != strings.ToUpper(c) || len(c) < 4 || len(c) > 20 || CleanCode(c) != c) {
			t.Errorf("code %q cleaned to %q", code, c)
		}
		c, errs := CodeInput{Code: code, Percent: percent, MaxUses: uses, Early: early}.Validate()
		if len(errs) > 0 {
			return
		}
		if c.Code == "" || c.Percent < 0 || c.Percent > 100 || c.MaxUses < 0 || c.MaxUses > MaxCap || c.Percent == 0 && !c.Early {
			t.Errorf("accepted %+v", c)
		}
		if d := discountOf(MaxPrice, c.Percent); d < 0 || d > MaxPrice {
			t.Errorf("discount %d of %d", d, MaxPrice)
		}
	})
}

func FuzzTextInput(f *testing.F) {
	f.Add("Bag drop at the pier.", "I run at my own risk.")
	f.Add("", "\x00\r\n\u202e<script>")
	f.Add(strings.Repeat("é", MaxLongText), strings.Repeat("\n", 100))
	f.Fuzz(func(t *testing.T, info, waiver string) {
		gotInfo, gotWaiver, errs := TextInput{Info: info, Waiver: waiver}.Validate()
		if len(errs) > 0 {
			return
		}
		for _, s := range []string{gotInfo, gotWaiver} {
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxLongText || strings.ContainsRune(s, 0) {
				t.Errorf("accepted text of %d runes: %.80q", utf8.RuneCountInString(s), s)
			}
		}
	})
}
