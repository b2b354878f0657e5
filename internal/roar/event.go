package roar

import "github.com/tutti-dev/tutti/internal/live"

// subject is the bus subject of roar's live events; every instance
// subscribes, so a roar posted on one reaches the streams of all.
const subject = "roar.events"

// Event is a live change, as sent on the bus and to the streams.
type Event struct {
	Type    string   `json:"type"` // roar, like, counts, delete, notify
	ID      int64    `json:"id"`   // the roar; notify: the user notified
	Author  int64    `json:"author,omitempty"`
	Origin  int64    `json:"origin,omitempty"` // for a repost: the original's author
	ReplyTo int64    `json:"reply_to,omitempty"`
	Likes   int64    `json:"likes"`
	Gone    []int64  `json:"gone,omitempty"`   // delete: every roar removed
	HTML    string   `json:"html,omitempty"`   // roar: the rendered article, the same for every viewer
	Roar    *APIRoar `json:"roar,omitempty"`   // roar: the API's representation
	At      int64    `json:"at,omitempty"`     // roar: created, unix ms (for delivery delay)
	Unread  *int64   `json:"unread,omitempty"` // notify: the user's unread notifications

	// of is the roar of a "roar" or "counts" event, from which App.announce
	// fills in HTML and Roar; it is not sent.
	of *Roar
}

// The forms of an event on a stream (live.Stream.Form).
const (
	formPage = iota // a new roar as its rendered article
	formAPI         // ?format=json: a new roar as the API's Roar
)

// message is an event as the streams write it, made once per instance: a new
// roar carries its id, for Last-Event-ID.
func message(e *Event) live.Message {
	page, api := *e, *e
	if page.HTML != "" {
		page.Roar = nil
	}
	api.HTML = ""
	m := live.Message{Type: e.Type, Data: [][]byte{formPage: live.JSON(&page), formAPI: live.JSON(&api)}}
	if e.Type == "roar" {
		m.ID = e.ID
	}
	return m
}
