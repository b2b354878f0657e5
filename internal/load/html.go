package load

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Form is an HTML form read from a page: where it goes and its fields with
// their initial values (inputs, checked boxes, selected options, textareas).
type Form struct {
	Action *url.URL
	Method string
	Values url.Values
}

// Set sets a field.
func (f *Form) Set(name, value string) { f.Values.Set(name, value) }

// Form returns the first form whose action contains match ("" for the first
// form, "#id" for the form with that id).
func (p *Page) Form(match string) (*Form, error) {
	doc, err := p.tree()
	if err != nil {
		return nil, err
	}
	var found *html.Node
	walk(doc, func(n *html.Node) bool {
		if n.DataAtom != atom.Form {
			return true
		}
		ok := match == "" || (strings.HasPrefix(match, "#") && attr(n, "id") == match[1:]) ||
			(!strings.HasPrefix(match, "#") && strings.Contains(attr(n, "action"), match))
		if ok {
			found = n
			return false
		}
		return true
	})
	if found == nil {
		return nil, fmt.Errorf("no form %q on %s", match, p.URL.Path)
	}
	action, err := p.URL.Parse(attr(found, "action"))
	if err != nil {
		return nil, err
	}
	f := &Form{Action: action, Method: strings.ToUpper(attr(found, "method")), Values: url.Values{}}
	if f.Method == "" {
		f.Method = "GET"
	}
	walk(found, func(n *html.Node) bool {
		name := attr(n, "name")
		if name == "" || hasAttr(n, "disabled") {
			return true
		}
		switch n.DataAtom {
		case atom.Input:
			switch strings.ToLower(attr(n, "type")) {
			case "checkbox", "radio":
				if hasAttr(n, "checked") {
					f.Values.Add(name, attrOr(n, "value", "on"))
				}
			case "submit", "button", "image", "reset", "file":
			default:
				f.Values.Add(name, attr(n, "value"))
			}
		case atom.Textarea:
			f.Values.Add(name, text(n))
		case atom.Select:
			var first, selected string
			var have bool
			walk(n, func(o *html.Node) bool {
				if o.DataAtom == atom.Option {
					v := attrOr(o, "value", text(o))
					if !have && first == "" {
						first = v
					}
					if hasAttr(o, "selected") && !have {
						selected, have = v, true
					}
				}
				return true
			})
			if !have {
				selected = first
			}
			f.Values.Add(name, selected)
		}
		return true
	})
	return f, nil
}

// Links returns the hrefs of the page's links that contain match, resolved.
func (p *Page) Links(match string) []string {
	doc, err := p.tree()
	if err != nil {
		return nil
	}
	var out []string
	walk(doc, func(n *html.Node) bool {
		if n.DataAtom == atom.A {
			if h := attr(n, "href"); strings.Contains(h, match) {
				if u, err := p.URL.Parse(h); err == nil {
					out = append(out, u.String())
				}
			}
		}
		return true
	})
	return out
}

// assets are the page's style sheets and scripts on its own host.
func (p *Page) assets() []string {
	doc, err := p.tree()
	if err != nil {
		return nil
	}
	var out []string
	walk(doc, func(n *html.Node) bool {
		var ref string
		switch {
		case n.DataAtom == atom.Link && strings.EqualFold(attr(n, "rel"), "stylesheet"):
			ref = attr(n, "href")
		case n.DataAtom == atom.Script:
			ref = attr(n, "src")
		}
		if ref != "" {
			if u, err := p.URL.Parse(ref); err == nil && u.Host == p.URL.Host {
				out = append(out, u.String())
			}
		}
		return true
	})
	return out
}

// Link is the first of Links, or an error.
func (p *Page) Link(match string) (string, error) {
	if l := p.Links(match); len(l) > 0 {
		return l[0], nil
	}
	return "", fmt.Errorf("no link %q on %s", match, p.URL.Path)
}

// Attr returns attribute a of the first element with the given id.
func (p *Page) Attr(id, a string) string {
	doc, err := p.tree()
	if err != nil {
		return ""
	}
	var v string
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && attr(n, "id") == id {
			v = attr(n, a)
			return false
		}
		return true
	})
	return v
}

// Contains reports whether the body contains s.
func (p *Page) Contains(s string) bool { return bytes.Contains(p.Body, []byte(s)) }

// walk visits n and its descendants in document order until fn returns false.
func walk(n *html.Node, fn func(*html.Node) bool) bool {
	if n.Type == html.ElementNode && !fn(n) {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !walk(c, fn) {
			return false
		}
	}
	return true
}

func attr(n *html.Node, key string) string { return attrOr(n, key, "") }

func attrOr(n *html.Node, key, def string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return def
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return strings.TrimSpace(b.String())
}

// tree is the page parsed, once: a session asks one page for its assets,
// a form and a link, and parsing is a tenth of a busy generator's time.
func (p *Page) tree() (*html.Node, error) {
	if p.doc == nil && p.docErr == nil {
		p.doc, p.docErr = html.Parse(bytes.NewReader(p.Body))
	}
	return p.doc, p.docErr
}
