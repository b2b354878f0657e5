package roar

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/text"
)

// page is what a timeline-like page shows.
type page struct {
	Title   string
	Tab     string // public, home, tag, profile, thread, notifications, reports
	Viewer  *Viewer
	Roars   []Roar
	Older   string // URL of the next (older) page; empty at the end
	Live    string // the stream feed that updates this page: public, home; empty: none
	Compose *compose
	Profile *Profile
	Tag     string
	Focus   *Roar  // the roar of a thread page
	Above   []Roar // its ancestors, oldest first
	Notes   []Notification
	Reports []Report
	Flash   string
	// Trending is the hashtags trending now, shown beside a timeline.
	Trending []tags.Trend
}

// compose is the post form, with what was typed and its error.
type compose struct {
	Body    string
	ReplyTo int64
	Error   string
	Prompt  string
	From    string // the page the form is on (path and query): where a post returns
}

func roarURL(id int64) string    { return "/roar/r/" + strconv.FormatInt(id, 10) }
func userURL(name string) string { return "/roar/u/" + name }
func tagURL(tag string) string   { return "/roar/tags/" + tag }
func itoa(n int64) string        { return strconv.FormatInt(n, 10) }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
func shortTime(t time.Time) string {
	return t.UTC().Format("Jan 2, 15:04") + " UTC"
}

func initials(a Author) string {
	r, _ := utf8.DecodeRuneInString(a.Name())
	return strings.ToUpper(string(r))
}

func avatarURL(a Author) string {
	if a.Avatar == "" {
		return ""
	}
	return (&auth.User{Avatar: a.Avatar}).AvatarURL()
}

func left(body string) string { return strconv.Itoa(MaxLen - text.Len(body)) }

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func noteText(n *Notification) string {
	switch n.Kind {
	case "mention":
		return "mentioned you"
	case "reply":
		return "replied to you"
	case "like":
		return "liked your roar"
	case "repost":
		return "reposted your roar"
	case "follow":
		return "followed you"
	}
	return n.Kind
}

// reportViews are the moderators' page's reported roars, for the core's
// list (social.ReportsList).
func (p *page) reportViews() []social.ReportView {
	out := make([]social.ReportView, len(p.Reports))
	for i := range p.Reports {
		r := &p.Reports[i]
		out[i] = social.ReportView{Count: r.Count, Reporter: r.Reporter, Reason: r.Reason,
			Post: roarArticle(&r.Roar, p.Viewer, ""), Noun: "roar",
			Remove: roarURL(r.Roar.ID) + "/delete", Dismiss: roarURL(r.Roar.ID) + "/dismiss"}
	}
	return out
}
