package meet

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

func fmtTFs(tfs []Timeframe) string {
	s := ""
	for _, t := range tfs {
		s += fmt.Sprintf("[%s-%s t%d] ", t.Start.Format("02 15:04"), t.End.Format("02 15:04"), t.Tier)
	}
	return s
}

func TestMergeTimeframes(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []Timeframe
		want string
	}{
		{"duplicate", []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 2), tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 2)},
			"[06 09:00-06 10:00 t2] "},
		{"overlap keeps the better tier", []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 11:00", 2), tf(1, "2030-05-06 10:00", "2030-05-06 12:00", 1)},
			"[06 09:00-06 10:00 t2] [06 10:00-06 12:00 t1] "},
		{"worse tier inside a better one disappears", []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 12:00", 1), tf(1, "2030-05-06 10:00", "2030-05-06 11:00", 3)},
			"[06 09:00-06 12:00 t1] "},
		{"better tier inside a worse one splits it", []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 12:00", 3), tf(1, "2030-05-06 10:00", "2030-05-06 11:00", 1)},
			"[06 09:00-06 10:00 t3] [06 10:00-06 11:00 t1] [06 11:00-06 12:00 t3] "},
		{"touching, same tier", []Timeframe{tf(1, "2030-05-06 10:00", "2030-05-06 11:00", 2), tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 2)},
			"[06 09:00-06 11:00 t2] "},
		{"touching, other tier", []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 2), tf(1, "2030-05-06 10:00", "2030-05-06 11:00", 1)},
			"[06 09:00-06 10:00 t2] [06 10:00-06 11:00 t1] "},
		{"apart", []Timeframe{tf(1, "2030-05-07 09:00", "2030-05-07 10:00", 1), tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 1)},
			"[06 09:00-06 10:00 t1] [07 09:00-07 10:00 t1] "},
	} {
		if got := fmtTFs(MergeTimeframes(c.in)); got != c.want {
			t.Errorf("%s: got %s; want %s", c.name, got, c.want)
		}
	}
}

// TestStoreAddTimeframeMerges: a participant's timeframes are kept as a
// union on both databases; a duplicate adds nothing and an overlap keeps the
// better tier.
func TestStoreAddTimeframeMerges(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s := NewStore(d, func() time.Time { return time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC) })
		p := testPoll("MMMMMMMMMMMMMMMMMMMMMM")
		if err := s.CreatePoll(ctx, p); err != nil {
			t.Fatal(err)
		}
		ada := Participant{PollID: p.ID, Name: "Ada", EditToken: "x"}
		grace := Participant{PollID: p.ID, Name: "Grace", EditToken: "y"}
		for _, pt := range []*Participant{&ada, &grace} {
			if _, _, err := s.AddParticipant(ctx, pt); err != nil {
				t.Fatal(err)
			}
		}
		sl := p.Slots() // 2030-03-02 09:00 Berlin = 08:00 UTC, 15 minutes apart
		add := func(pid int64, from, to, tier int) {
			t.Helper()
			tf := Timeframe{ParticipantID: pid, Start: sl[from], End: sl[to], Tier: tier}
			if _, err := s.AddTimeframe(ctx, p.ID, &tf); err != nil {
				t.Fatal(err)
			}
			if tf.ID == 0 {
				t.Errorf("AddTimeframe left the ID 0")
			}
		}
		add(ada.ID, 0, 8, 2)   // 09:00-11:00 fine
		add(grace.ID, 0, 8, 3) // another participant's answers are not merged with Ada's
		add(ada.ID, 0, 8, 2)   // the same again
		add(ada.ID, 4, 12, 1)  // 10:00-12:00 preferred
		add(ada.ID, 12, 16, 1) // 12:00-13:00 preferred, touching
		got, err := s.ParticipantTimeframes(ctx, p.ID, ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []Timeframe{{Start: sl[0], End: sl[4], Tier: 2}, {Start: sl[4], End: sl[16], Tier: 1}}
		if fmtTFs(got) != fmtTFs(want) {
			t.Errorf("Ada's timeframes: got %s; want %s", fmtTFs(got), fmtTFs(want))
		}
		if g, _ := s.ParticipantTimeframes(ctx, p.ID, grace.ID); len(g) != 1 || g[0].Tier != 3 {
			t.Errorf("Grace's timeframes: %s; want one at tier 3", fmtTFs(g))
		}
	}, Migrations)
}

func TestClipTimeframes(t *testing.T) {
	// dayPoll: 2030-05-06, 09:00-12:00 UTC.
	slots := dayPoll.Slots()
	in := []Timeframe{
		{ID: 1, ParticipantID: 1, Start: utc("2030-05-06 09:00"), End: utc("2030-05-06 10:00"), Tier: 1}, // fits
		{ID: 2, ParticipantID: 1, Start: utc("2030-05-06 11:00"), End: utc("2030-05-06 13:00"), Tier: 2}, // clipped
		{ID: 3, ParticipantID: 2, Start: utc("2030-05-06 13:00"), End: utc("2030-05-06 14:00"), Tier: 3}, // dropped
		{ID: 4, ParticipantID: 2, Start: utc("2030-05-06 08:00"), End: utc("2030-05-06 09:30"), Tier: 1}, // clipped
	}
	kept, lost, changed := ClipTimeframes(slots, in)
	if got, want := fmtTFs(kept), "[06 11:00-06 12:00 t2] [06 09:00-06 09:30 t1] "; got != want {
		t.Errorf("kept %s; want %s", got, want)
	}
	if got, want := fmtTFs(lost), "[06 12:00-06 13:00 t2] [06 08:00-06 09:00 t1] [06 13:00-06 14:00 t3] "; got != want {
		t.Errorf("lost %s; want %s", got, want)
	}
	if fmt.Sprint(changed) != "[2 3 4]" {
		t.Errorf("changed %v; want [2 3 4]", changed)
	}
	if LossToken(lost) == LossToken(lost[:2]) {
		t.Errorf("the loss token does not depend on what is lost")
	}
}
