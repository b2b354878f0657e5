package race

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/text"
)

// Extras are what a race offers besides its events (the race wizard's
// third step): teams runners create or join, a fundraiser runners may give
// to, and store items with a stock. Each is on the runner's wizard as a
// page of its own, and only when the race offers it.

// Item is a store item of a race (a shirt, a medal engraving, a pasta
// dinner ticket) with a stock that is never oversold: Taken is the units
// sold and held, claimed as places are, by a conditional UPDATE.
type Item struct {
	ID    int64
	Name  string
	Price int64 // in cents, a unit
	Stock int
	Taken int
}

// Left is the units neither sold nor held.
func (it *Item) Left() int { return max(it.Stock-it.Taken, 0) }

// Line is a store item on a hold (and so on its registration): Qty units at
// Price each, the price when chosen.
type Line struct {
	ItemID int64
	Name   string
	Qty    int
	Price  int64
}

// Team is a team of a race, as its team page lists it.
type Team struct {
	ID      int64
	Name    string
	Runners int // confirmed registrations
}

// Limits of the extras.
const (
	MaxItems    = 20
	MaxItemQty  = 10 // units of one item a runner may buy
	MaxStock    = 1_000_000
	MaxDonation = 10_000_00 // 10,000 in major units
	MaxTeams    = 500       // teams the team page suggests
)

var (
	fundraiserField = text.Field{Name: "The fundraiser's name", Max: 200}
	itemField       = text.Field{Name: "The item's name", Min: 1, Max: MaxNameLen, Empty: "Name the item (\"Race shirt\")."}
	teamField       = text.Field{Name: "The team's name", Max: 60}
)

// ExtrasInput is the extras form as typed (the store items have forms of
// their own).
type ExtrasInput struct {
	Teams      bool
	Fundraiser string // the cause runners may give to; "" for none
	Shirts     bool   // the details page asks for a T-shirt size
}

// Validate checks the extras (field fundraiser).
func (in ExtrasInput) Validate() (ExtrasInput, map[string]string) {
	f := map[string]string{}
	var msg string
	if in.Fundraiser, msg = fundraiserField.Clean(in.Fundraiser); msg != "" {
		f["fundraiser"] = msg
	}
	return in, f
}

// ItemInput is a store item's form as typed.
type ItemInput struct{ Name, Price, Stock string }

// Validate checks a store item (fields name, price, stock) of a race
// in currency c.
func (in ItemInput) Validate(c checkout.Currency) (Item, map[string]string) {
	f := map[string]string{}
	var it Item
	var msg string
	if it.Name, msg = itemField.Clean(in.Name); msg != "" {
		f["name"] = msg
	}
	if it.Price, msg = parseMoney(in.Price, c); msg != "" {
		f["price"] = msg
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(in.Stock, ",", "")))
	if err != nil || n < 0 || n > MaxStock {
		f["stock"] = fmt.Sprintf("Give the stock, from 0 to %d.", MaxStock)
	}
	it.Stock = n
	return it, f
}

// DonationChoices are the donation page's suggested amounts, in cents.
var DonationChoices = []int64{10_00, 25_00, 50_00, 100_00}

// ParseDonation reads the donation page: choice is "0", one of
// DonationChoices in cents, or "other" with other typed as money; an
// amount typed with another choice ticked is refused (it is neither
// dropped nor taken over the choice). It returns cents, or a message
// (field other).
func ParseDonation(choice, other string, currency checkout.Currency) (int64, string) {
	choice = strings.TrimSpace(choice)
	if strings.TrimSpace(other) != "" && choice != "other" {
		// An amount typed, another choice ticked: never drop what was typed.
		return 0, "You typed an amount here but ticked another choice: tick “Another amount” to give it, or clear the amount."
	}
	switch choice {
	case "", "0":
		return 0, ""
	case "other":
		v, msg := parseMoney(other, currency)
		switch {
		case msg != "":
			return 0, "Give the amount as a number, such as 15 or " + checkout.Of(1550, currency).Price() + "."
		case v > MaxDonation:
			return 0, fmt.Sprintf("A donation here is at most %s.", checkout.Of(MaxDonation, currency).Price())
		}
		return v, ""
	}
	v, err := strconv.ParseInt(choice, 10, 64)
	for _, c := range DonationChoices {
		if err == nil && v == c {
			return v, ""
		}
	}
	return 0, "Pick an amount."
}

// ParseQuantities reads the store page: one field per item of the race,
// "qty-<id>", blank for none. It returns the quantities asked for by item
// id, or a message per field.
func ParseQuantities(items []Item, get func(string) string) (map[int64]int, map[string]string) {
	f := map[string]string{}
	out := map[int64]int{}
	for _, it := range items {
		name := "qty-" + strconv.FormatInt(it.ID, 10)
		s := strings.TrimSpace(get(name))
		if s == "" || s == "0" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > MaxItemQty {
			f[name] = fmt.Sprintf("Choose from 0 to %d.", MaxItemQty)
			continue
		}
		out[it.ID] = n
	}
	return out, f
}

// TeamKey is a team's name as two teams' names are compared: "Zoë's
// Runners" and "zoes runners" are one team.
func TeamKey(name string) string { return NameKey(strings.ReplaceAll(text.Fold(name), "'", "")) }

// CleanTeam checks a team's name as typed on the team page: "" (no team)
// or a name with a letter or a digit (field team).
func CleanTeam(s string) (string, string) {
	name, msg := teamField.Clean(s)
	if msg != "" {
		return "", msg
	}
	if name != "" && TeamKey(name) == "" {
		return "", "A team's name needs a letter or a digit."
	}
	return name, ""
}

// Total is what a hold costs: the event's price, the donation and the store
// lines.
func Total(price, donation int64, lines []Line) int64 {
	t := price + donation
	for _, l := range lines {
		t += int64(l.Qty) * l.Price
	}
	return t
}

// Owed is what hold h in event e is charged: what its first attempt
// charged once paying (a retry charges the same), else the event's price
// less the code's discount, the donation and the store lines (h.Lines,
// loaded).
func (h *Hold) Owed(e *Event) int64 {
	if h.Status == checkout.Paying || h.Status == checkout.Paid || h.Status == checkout.Done {
		return h.Amount
	}
	return Total(max(e.Price-h.Discount, 0), h.Donation, h.Lines)
}

// Offers reports which extras pages race r puts in the runner's wizard.
func (r *Race) Offers() (teams, donation, store bool) {
	return r.Teams, r.Fundraiser != "", len(r.Items) > 0
}

// Item finds the race's item id.
func (r *Race) Item(id int64) (*Item, bool) {
	for i := range r.Items {
		if r.Items[i].ID == id {
			return &r.Items[i], true
		}
	}
	return nil, false
}
