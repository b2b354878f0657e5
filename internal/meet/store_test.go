package meet

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

func testPoll(id string) *Poll {
	return &Poll{ID: id, AdminToken: "admin-" + id, Title: "T", StartDate: "2030-03-02", EndDate: "2030-03-04",
		DayStart: 9 * 60, DayEnd: 17 * 60, TZ: "Europe/Berlin"}
}

// testNow is the store tests' clock.
var testNow = time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestStore is a store on d at testNow with a poll (testPoll) created
// for each of ids.
func newTestStore(t *testing.T, d *db.DB, ids ...string) (*Store, []*Poll) {
	t.Helper()
	s := NewStore(d, func() time.Time { return testNow })
	var polls []*Poll
	for _, id := range ids {
		p := testPoll(id)
		if err := s.CreatePoll(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		polls = append(polls, p)
	}
	return s, polls
}

func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		now := testNow
		s, polls := newTestStore(t, d, "AAAAAAAAAAAAAAAAAAAAAA")
		p := polls[0]
		got, err := s.Poll(ctx, p.ID)
		if err != nil || got.Title != "T" || got.DayEnd != 17*60 || got.Version != 1 {
			t.Fatalf("Poll = %+v, %v", got, err)
		}
		if _, err := s.Poll(ctx, "BBBBBBBBBBBBBBBBBBBBBB"); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("missing poll: %v; want ErrNotFound", err)
		}
		ada := Participant{PollID: p.ID, Name: "Ada", EditToken: "x"}
		v, _, err := s.AddParticipant(ctx, &ada)
		if err != nil || v != 2 || ada.ID == 0 {
			t.Fatalf("AddParticipant: v=%d id=%d %v; want version 2", v, ada.ID, err)
		}
		if _, _, err := s.AddParticipant(ctx, &Participant{PollID: p.ID, Name: " ADA ", EditToken: "y"}); !errors.Is(err, ErrNameTaken) {
			t.Errorf("same name: %v; want ErrNameTaken", err)
		}
		slots := p.Slots()
		tf := Timeframe{ParticipantID: ada.ID, Start: slots[0], End: slots[4], Tier: 1}
		if v, err = s.AddTimeframe(ctx, p.ID, &tf); err != nil || v != 3 {
			t.Fatalf("AddTimeframe: %d %v", v, err)
		}
		c := Comment{ParticipantID: ada.ID, Body: "hello"}
		if v, err = s.AddComment(ctx, p.ID, &c); err != nil || v != 4 {
			t.Fatalf("AddComment: %d %v", v, err)
		}
		for i := range 6 {
			s.AddComment(ctx, p.ID, &Comment{ParticipantID: ada.ID, Body: string(rune('a' + i))})
		}
		page1, next, err := s.Comments(ctx, p.ID, 0, db.Cursor{}, 5)
		if err != nil || len(page1) != 5 || next.ID != page1[4].ID || page1[0].Body != "f" || page1[0].Author != "Ada" {
			t.Fatalf("comments page 1: %d next=%v %v", len(page1), next, err)
		}
		page2, next, err := s.Comments(ctx, p.ID, 0, next, 5)
		if err != nil || len(page2) != 2 || !next.IsZero() || page2[1].Body != "hello" {
			t.Fatalf("comments page 2: %+v next=%v %v", page2, next, err)
		}
		// The poll's version is what the caches key on.
		if v, dl, err := s.Version(ctx, p.ID); err != nil || v != 10 || dl != nil {
			t.Errorf("Version = %d, %v, %v; want 10, nil", v, dl, err)
		}
		// Narrowing the window drops timeframes that no longer fit, once
		// the organizer has confirmed exactly that loss.
		p.DayStart = 10 * 60
		_, lost, err := s.UpdatePoll(ctx, p, "")
		if !errors.Is(err, ErrEditLoses) || len(lost) != 1 {
			t.Fatalf("unconfirmed loss: %v, %d lost; want ErrEditLoses, 1", err, len(lost))
		}
		if tfs, _ := s.Timeframes(ctx, p.ID); len(tfs) != 1 {
			t.Errorf("%d timeframes after an unconfirmed edit; want 1", len(tfs))
		}
		if _, _, err := s.UpdatePoll(ctx, p, LossToken(lost)); err != nil {
			t.Fatal(err)
		}
		if tfs, _ := s.Timeframes(ctx, p.ID); len(tfs) != 0 {
			t.Errorf("%d timeframes left outside the new window; want 0", len(tfs))
		}
		// Past the deadline nothing is written.
		past := now.Add(-time.Minute)
		p.Deadline = &past
		if _, _, err := s.UpdatePoll(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		before, _, _ := s.Version(ctx, p.ID)
		if _, _, err := s.AddParticipant(ctx, &Participant{PollID: p.ID, Name: "Late", EditToken: "z"}); !errors.Is(err, ErrLocked) {
			t.Errorf("after the deadline: %v; want ErrLocked", err)
		}
		if after, _, _ := s.Version(ctx, p.ID); after != before {
			t.Errorf("a refused write changed the version %d -> %d", before, after)
		}
		if ps, _ := s.Participants(ctx, p.ID); len(ps) != 1 {
			t.Errorf("%d participants; want 1", len(ps))
		}
		// Deleting the poll removes everything in it.
		if err := s.DeletePoll(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		var n int
		db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM meet_comments"), &n)
		if n != 0 {
			t.Errorf("%d comments left after deleting the poll", n)
		}
	}, Migrations)
}

// ParticipantPage, the participant page's one query, reads what the
// separate reads do: the poll and participant, only this participant's
// timeframes (by start), their newest participantCommentsShown comments
// (newest first) and, on their own page only, their busy times (by
// start); a participant of another poll, or none, is not found.
func TestParticipantPageAsSeparateReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, polls := newTestStore(t, d, "CCCCCCCCCCCCCCCCCCCCCC", "DDDDDDDDDDDDDDDDDDDDDD")
		p := polls[0]
		ada, bob := Participant{PollID: p.ID, Name: "Ada", EditToken: "a"}, Participant{PollID: p.ID, Name: "Bob", EditToken: "b"}
		for _, pt := range []*Participant{&ada, &bob} {
			if _, _, err := s.AddParticipant(ctx, pt); err != nil {
				t.Fatal(err)
			}
		}
		slots := p.Slots()
		for i, at := range []int{20, 0, 8} { // added out of order
			tf := Timeframe{ParticipantID: ada.ID, Start: slots[at], End: slots[at+2], Tier: 1 + i}
			if _, err := s.AddTimeframe(ctx, p.ID, &tf); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddTimeframe(ctx, p.ID, &Timeframe{ParticipantID: bob.ID, Start: slots[4], End: slots[6], Tier: 1}); err != nil {
			t.Fatal(err)
		}
		for i := range participantCommentsShown + 3 {
			if _, err := s.AddComment(ctx, p.ID, &Comment{ParticipantID: ada.ID, Body: fmt.Sprintf("ada %d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddComment(ctx, p.ID, &Comment{ParticipantID: bob.ID, Body: "bob's"}); err != nil {
			t.Fatal(err)
		}
		busy := []Busy{{Start: slots[30], End: slots[31]}, {Start: slots[10], End: slots[12]}}
		if err := s.ReplaceBusy(ctx, ada.ID, busy); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceBusy(ctx, bob.ID, busy[:1]); err != nil {
			t.Fatal(err)
		}

		wantTfs, err := s.ParticipantTimeframes(ctx, p.ID, ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantComments, _, err := s.Comments(ctx, p.ID, ada.ID, db.Cursor{}, participantCommentsShown)
		if err != nil {
			t.Fatal(err)
		}
		wantBusy, err := s.Busy(ctx, ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(wantTfs) != 3 || len(wantComments) != participantCommentsShown || len(wantBusy) != 2 {
			t.Fatalf("the separate reads: %d timeframes, %d comments, %d busy; the test proves nothing", len(wantTfs), len(wantComments), len(wantBusy))
		}
		wantPoll, wantAda, err := s.PollParticipant(ctx, p.ID, ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.ParticipantPage(ctx, p.ID, ada.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Poll, wantPoll) || !reflect.DeepEqual(got.Who, wantAda) {
			t.Errorf("poll and participant\n got %+v %+v\nwant %+v %+v", got.Poll, got.Who, wantPoll, wantAda)
		}
		tfs, comments, gotBusy := got.Timeframes, got.Comments, got.Busy
		if !reflect.DeepEqual(tfs, wantTfs) {
			t.Errorf("timeframes\n got %+v\nwant %+v", tfs, wantTfs)
		}
		if !reflect.DeepEqual(comments, wantComments) {
			t.Errorf("comments\n got %+v\nwant %+v", comments, wantComments)
		}
		if !reflect.DeepEqual(gotBusy, wantBusy) {
			t.Errorf("busy\n got %+v\nwant %+v", gotBusy, wantBusy)
		}
		if comments[0].Body != fmt.Sprintf("ada %d", participantCommentsShown+2) {
			t.Errorf("first comment %q; want the newest", comments[0].Body)
		}
		if pub, err := s.ParticipantPage(ctx, p.ID, ada.ID, false); err != nil || len(pub.Busy) != 0 || len(pub.Timeframes) != 3 {
			t.Errorf("the public page: %+v, %v; want her 3 timeframes and no busy times", pub, err)
		}
		if b, err := s.ParticipantPage(ctx, p.ID, bob.ID, true); err != nil || b.Who.Name != "Bob" || len(b.Timeframes) != 1 || len(b.Comments) != 1 || b.Comments[0].Body != "bob's" || b.Comments[0].Author != "Bob" {
			t.Errorf("Bob's page: %+v, %v; want his one of each", b, err)
		}
		for _, k := range []struct {
			poll string
			pid  int64
		}{{polls[1].ID, ada.ID}, {p.ID, bob.ID + 1000}} {
			if _, err := s.ParticipantPage(ctx, k.poll, k.pid, true); !errors.Is(err, errs.ErrNotFound) {
				t.Errorf("participant %d of poll %s: %v; want not found", k.pid, k.poll, err)
			}
		}
	}, Migrations)
}

// The poll page's one query (PollPage, and PollPageAt for the cached page)
// reads what the separate reads do: the poll, every participant, every
// timeframe and a page of comments (their authors' names too), the next
// page from its cursor, nothing of another poll; no poll is NotFound.
func TestPollPageAsSeparateReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, polls := newTestStore(t, d, "DDDDDDDDDDDDDDDDDDDDDD", "EEEEEEEEEEEEEEEEEEEEEE")
		for _, poll := range polls {
			id := poll.ID
			slots := poll.Slots()
			var people []*Participant
			for _, name := range []string{"Ada", "Bob", "Cy"} {
				pt := &Participant{PollID: id, Name: name, EditToken: name}
				if _, _, err := s.AddParticipant(ctx, pt); err != nil {
					t.Fatal(err)
				}
				people = append(people, pt)
			}
			for j, at := range []int{20, 0, 8, 4} { // out of order, over two people
				pt := people[j%2]
				if _, err := s.AddTimeframe(ctx, id, &Timeframe{ParticipantID: pt.ID, Start: slots[at], End: slots[at+2], Tier: 1 + j%3}); err != nil {
					t.Fatal(err)
				}
			}
			for j := range 2*PageSize + 2 {
				pt := people[(j+1)%3]
				if _, err := s.AddComment(ctx, id, &Comment{ParticipantID: pt.ID, Body: fmt.Sprintf("%s %d", pt.Name, j)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		p := polls[0]
		wantPeople, err := s.Participants(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantTfs, err := s.Timeframes(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantPoll, err := s.Poll(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(wantPeople) != 3 || len(wantTfs) != 4 || wantPoll.Version < 2 || wantPoll.TZ == "" {
			t.Fatalf("the separate reads: %d people, %d timeframes, poll %+v; the test proves nothing", len(wantPeople), len(wantTfs), wantPoll)
		}
		at, err := s.PollPageAt(ctx, p.ID, wantPoll.Version, db.Cursor{}, PageSize)
		if err != nil {
			t.Fatal(err)
		}
		primary, err := s.PollPage(ctx, p.ID, db.Cursor{}, PageSize)
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string]*PollData{"PollPageAt": at, "PollPage": primary} {
			if !reflect.DeepEqual(got.Poll, wantPoll) {
				t.Errorf("%s: poll\n got %+v\nwant %+v", name, got.Poll, wantPoll)
			}
			if !reflect.DeepEqual(got.People, wantPeople) {
				t.Errorf("%s: participants\n got %+v\nwant %+v", name, got.People, wantPeople)
			}
			if !reflect.DeepEqual(got.Timeframes, wantTfs) {
				t.Errorf("%s: timeframes\n got %+v\nwant %+v", name, got.Timeframes, wantTfs)
			}
		}
		if _, err := s.PollPage(ctx, "HHHHHHHHHHHHHHHHHHHHHH", db.Cursor{}, PageSize); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("PollPage of no poll: %v, want NotFound", err)
		}
		var cursor db.Cursor
		for page := 1; ; page++ {
			want, wantNext, err := s.Comments(ctx, p.ID, 0, cursor, PageSize)
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.PollPage(ctx, p.ID, cursor, PageSize)
			if err != nil {
				t.Fatal(err)
			}
			got, next := d.Comments, d.Next
			if len(want) == 0 || want[0].Author == "" {
				t.Fatalf("page %d of the separate reads: %+v; the test proves nothing", page, want)
			}
			if !reflect.DeepEqual(got, want) || next != wantNext {
				t.Errorf("comments, page %d\n got %+v, next %+v\nwant %+v, next %+v", page, got, next, want, wantNext)
			}
			if wantNext.IsZero() {
				if page != 3 {
					t.Errorf("%d pages of comments, want 3", page)
				}
				break
			}
			cursor = wantNext
		}
	}, Migrations)
}

// A poll takes MaxParticipants and refuses the next with Conflict, writing
// nothing; another poll is not counted.
func TestParticipantCap(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		s, polls := newTestStore(t, d, "FFFFFFFFFFFFFFFFFFFFFF", "GGGGGGGGGGGGGGGGGGGGGG")
		full, other := polls[0], polls[1]
		// All but one of the places, in a few statements.
		const per = 200
		for start := 0; start < MaxParticipants-1; start += per {
			var args []any
			n := min(per, MaxParticipants-1-start)
			for i := range n {
				name := fmt.Sprintf("p%d", start+i)
				args = append(args, full.ID, name, name, "t"+name, testNow.Unix())
			}
			if _, err := d.Exec(ctx, `INSERT INTO meet_participants (poll_id, name, name_key, edit_token, created_at) VALUES `+
				db.Values(n, 5), args...); err != nil {
				t.Fatal(err)
			}
		}
		last := &Participant{PollID: full.ID, Name: "Last", EditToken: "l"}
		if _, _, err := s.AddParticipant(ctx, last); err != nil || last.ID == 0 {
			t.Fatalf("the last place: %v (id %d)", err, last.ID)
		}
		v, _, err := s.Version(ctx, full.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.AddParticipant(ctx, &Participant{PollID: full.ID, Name: "One too many", EditToken: "x"})
		if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("past the cap: %v; want the limit's Conflict", err)
		}
		people, err := s.Participants(ctx, full.ID)
		if err != nil || len(people) != MaxParticipants {
			t.Errorf("%d participants, %v; want %d", len(people), err, MaxParticipants)
		}
		if v2, _, _ := s.Version(ctx, full.ID); v2 != v {
			t.Errorf("the refused join moved the version %d -> %d", v, v2)
		}
		if _, _, err := s.AddParticipant(ctx, &Participant{PollID: other.ID, Name: "Last", EditToken: "o"}); err != nil {
			t.Errorf("another poll refused: %v", err)
		}
		if _, _, err := s.AddParticipant(ctx, &Participant{PollID: full.ID, Name: "last", EditToken: "y"}); errs.KindOf(err) != errs.Conflict {
			t.Errorf("a taken name in a full poll: %v; want Conflict", err)
		}
	}, Migrations)
}
