package rehearsals

import (
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/race/races"
)

func TestRehearsalSettingsValidate(t *testing.T) {
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &races.Race{Events: []races.Event{{ID: 7, Name: "10K", StartsAt: now.AddDate(0, 1, 0)}, {ID: 9, Name: "Half", StartsAt: now.AddDate(0, 1, 0)},
		{ID: 5, Name: "Last year's 10K", StartsAt: now.AddDate(-1, 0, 0)}}}
	ok := input{Event: "7", Runners: "500", PageMin: "15", PageMax: "60", Within: "30", ClickMin: "5", ClickMax: "30", RefundDelay: "3600", Assets: true}
	s, f := ok.validate(r, now)
	if len(f) > 0 || s != (settings{Event: 7, Runners: 500, PageMin: 15, PageMax: 60, Within: 30, ClickMin: 5, ClickMax: 30, RefundDelay: 3600, Assets: true}) {
		t.Fatalf("valid settings: %+v %v", s, f)
	}
	if s, f := (input{Event: "0", Runners: "1", PageMin: "0", PageMax: "0", Within: "1", ClickMin: "0", ClickMax: "0", RefundDelay: "0"}).validate(r, now); len(f) > 0 || s.Event != 0 {
		t.Errorf("a random event: %+v %v", s, f)
	}
	for _, c := range []struct {
		change func(*input)
		field  string
	}{
		{func(in *input) { in.Runners = "50001" }, "runners"},
		{func(in *input) { in.Runners = "-1" }, "runners"},
		{func(in *input) { in.Runners = "1e9" }, "runners"},
		{func(in *input) { in.PageMax = "10" }, "page_max"}, // below the shortest
		{func(in *input) { in.PageMin = "601" }, "page_min"},
		{func(in *input) { in.Within = "0" }, "within"},
		{func(in *input) { in.ClickMax = "4" }, "click_max"},
		{func(in *input) { in.RefundDelay = "604801" }, "refund_delay"},
		{func(in *input) { in.Event = "8" }, "event"},
		{func(in *input) { in.Event = "x" }, "event"},
		{func(in *input) { in.Event = "5" }, "event"}, // started
	} {
		in := ok
		c.change(&in)
		if _, f := in.validate(r, now); f[c.field] == "" || len(f) != 1 {
			t.Errorf("%+v: errors %v; want one at %s", in, f, c.field)
		}
	}
	cp := *r
	cp.RehearsalOf = 3
	if _, f := ok.validate(&cp, now); f["event"] == "" {
		t.Error("a rehearsal of a rehearsal's copy was not refused")
	}
}

func TestSelfURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"0.0.0.0:80":     "http://127.0.0.1:80",
		"[::]:80":        "http://127.0.0.1:80",
		"[::1]:8080":     "http://[::1]:8080",
		"localhost:9":    "http://localhost:9",
		"10.0.0.5:8080":  "",
		"":               "",
	} {
		got, err := selfURL(addr)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("selfURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}
