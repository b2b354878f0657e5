package roar_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestReplyCountsMatchLive: after a reply, the thread's counts say what the
// page shows, for the replier (the answer to the page's script carries the
// parent's new counts), for a thread page open elsewhere (its stream gets
// the reply and the counts, and only the replies of that thread, caught up
// after a drop), and on the pages loaded afterwards.
func TestReplyCountsMatchLive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		id := ann.roar("Who plays at the Sunday session?", "")
		other := ann.roar("Another topic", "")

		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		threadEvents := openStreamWith(t, ctx, ann.c, m.URL()+"/roar/stream?thread="+id, "")
		publicEvents := openStream(t, ctx, m.URL()+"/roar/stream", "")
		waitFor(t, func() bool { return streams(t, m) == 2 })

		// Not a reply to this thread: the thread's stream does not get it.
		unrelated := bob.roar("Unrelated news", "")
		elsewhere := bob.roar("A reply elsewhere", other)

		// Bob replies from the thread page's script.
		res, body := bob.do("POST", "/roar/roars", strings.NewReader(url.Values{"body": {"@ann me, on fiddle"}, "reply_to": {id}}.Encode()),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}})
		wantStatus(t, res, http.StatusCreated, "reply")
		var reply struct {
			ID     int64  `json:"id"`
			HTML   string `json:"html"`
			Parent *struct {
				ID      int64 `json:"id"`
				Replies int64 `json:"replies"`
			} `json:"parent"`
		}
		if err := json.Unmarshal([]byte(body), &reply); err != nil {
			t.Fatal(err)
		}
		if reply.Parent == nil || itoa(reply.Parent.ID) != id || reply.Parent.Replies != 1 {
			t.Fatalf("reply answer %s; want the parent %s with 1 reply", body, id)
		}
		rid := itoa(reply.ID)

		// The thread's stream: the reply, then the parent's counts; nothing
		// of the other roars.
		var gotReply, gotCounts bool
		for !gotReply || !gotCounts {
			var e sse
			select {
			case e = <-threadEvents:
			case <-ctx.Done():
				t.Fatalf("thread stream: reply %v, counts %v; want both", gotReply, gotCounts)
			}
			switch {
			case e.event == "roar" && (e.id == unrelated || e.id == elsewhere || e.id == other):
				t.Fatalf("thread stream got roar %s, which is not a reply to %s", e.id, id)
			case e.event == "roar" && e.id == rid:
				gotReply = true
			case e.event == "counts" && strings.Contains(e.data, `"id":`+id+`,`):
				if !strings.Contains(e.data, `"replies":1`) {
					t.Fatalf("counts event %s; want replies 1", e.data)
				}
				gotCounts = true
			}
		}
		// A timeline's stream gets the counts too (the card's reply count).
		for {
			select {
			case e := <-publicEvents:
				if e.event != "counts" || !strings.Contains(e.data, `"id":`+id+`,`) {
					continue
				}
				if !strings.Contains(e.data, `"replies":1`) {
					t.Fatalf("public counts event %s; want replies 1", e.data)
				}
			case <-ctx.Done():
				t.Fatal("the public stream got no counts for the parent")
			}
			break
		}

		// Back after a drop: only this thread's replies are caught up.
		events := openStreamWith(t, ctx, ann.c, m.URL()+"/roar/stream?thread="+id+"&after="+id, "")
		if e := <-events; e.event != "roar" || e.id != rid {
			t.Fatalf("caught up %+v; want the reply %s", e, rid)
		}
		if e := <-events; e.event != "counts" || !strings.Contains(e.data, `"id":`+id+`,`) || !strings.Contains(e.data, `"replies":1`) {
			t.Fatalf("after the missed reply got %+v; want the thread's counts (1 reply)", e)
		}
		// And the fallback poll keeps to the thread too.
		_, page := ann.get("/roar/live?thread=" + id + "&since=" + id)
		if got := roarIDs.FindAllStringSubmatch(page, -1); len(got) != 1 || got[0][1] != rid {
			t.Fatalf("poll of the thread: %v; want only the reply %s", got, rid)
		}
		res, _ = ann.get("/roar/stream?thread=x")
		wantStatus(t, res, http.StatusBadRequest, "a bad thread")

		// Pages loaded now say the same, everywhere the parent shows.
		for _, who := range []*browser{ann, bob, newBrowser(t, m)} {
			_, page := who.get("/roar/r/" + id)
			if !strings.Contains(page, `data-thread="`+id+`"`) || !strings.Contains(page, `>1 reply</h2>`) ||
				!strings.Contains(page, `id="r-`+rid+`"`) || replyCount(page, id) != "1" {
				t.Fatalf("thread page: want the stream of thread %s, \"1 reply\", the reply and count 1 on the roar; got count %q\n%s",
					id, replyCount(page, id), page)
			}
			_, page = who.get("/roar/")
			if got := replyCount(page, id); got != "1" {
				t.Fatalf("timeline card of %s shows %q replies; want 1", id, got)
			}
		}
	})
}

// replyCount is the reply count shown on the article of roar id in page.
func replyCount(page, id string) string {
	_, art, ok := strings.Cut(page, `id="r-`+id+`"`)
	if !ok {
		return ""
	}
	_, rest, ok := strings.Cut(art, `class="n reply-count"`)
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, ">") // after its attributes (data-hidden)
	n, _, _ := strings.Cut(rest, "<")
	return n
}

// TestRefusedRoarFormsKeepWhatWasTyped: a refused reply comes back (422) on
// its thread as the thread page shows it (replies and counts), with the
// text as typed and the message beside it; a refused report keeps its
// reason. Nothing is written.
func TestRefusedRoarFormsKeepWhatWasTyped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		id := ann.roar("Tuning: 440 or 442?", "")
		first := bob.roar("442, always", id)

		typed := "@ann <b>443</b> & " + strings.Repeat("ö", 270) // 288 characters
		res, page := bob.post("/roar/roars", url.Values{"body": {typed}, "reply_to": {id}})
		wantStatus(t, res, http.StatusUnprocessableEntity, "too long a reply")
		for _, want := range []string{
			`id="body-error"`, "A roar can have at most 280 characters; this one has 288.",
			">" + html.EscapeString(typed) + "</textarea>",
			`name="reply_to" value="` + id + `"`,
			`id="r-` + first + `"`, ">1 reply</h2>", // the thread as it is
			`data-thread="` + id + `"`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("refused reply: want %q in the page", want)
			}
		}
		if got := replyCount(page, id); got != "1" {
			t.Errorf("refused reply page shows %q replies on the roar; want 1", got)
		}

		reason := strings.Repeat("spam ", 201) // 1004 characters, trimmed to 1004-1
		res, page = bob.post("/roar/r/"+id+"/report", url.Values{"reason": {reason}})
		wantStatus(t, res, http.StatusUnprocessableEntity, "too long a reason")
		if !strings.Contains(page, `id="reason-error"`) || !strings.Contains(page, "at most 1000 characters") ||
			!strings.Contains(page, ">"+reason+"</textarea>") {
			t.Error("refused report: the reason or its message is missing")
		}

		_, page = ann.get("/roar/r/" + id)
		if got := roarIDs.FindAllStringSubmatch(page, -1); len(got) != 2 || !strings.Contains(page, ">1 reply</h2>") {
			t.Fatalf("after refused forms the thread has %d roars; want the roar and its one reply", len(got))
		}
		_, page = ann.get("/roar/notifications")
		if strings.Count(page, "replied to you") != 1 {
			t.Error("a refused reply notified")
		}
	})
}
