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
	page   string // the page it is on: the Referer of its submission, as a browser sends it
}

// Set sets a field.
func (f *Form) Set(name, value string) { f.Values.Set(name, value) }

// Form returns the first form whose action contains match ("" for the first
// form, "#id" for the form with that id).
func (p *Page) Form(match string) (*Form, error) {
	els := p.elements()
	fi := -1
	for i := range els {
		n := &els[i]
		if n.a != atom.Form {
			continue
		}
		if match == "" || (strings.HasPrefix(match, "#") && n.attr("id") == match[1:]) ||
			(!strings.HasPrefix(match, "#") && strings.Contains(n.attr("action"), match)) {
			fi = i
			break
		}
	}
	if fi < 0 {
		return nil, fmt.Errorf("no form %q on %s", match, p.URL.Path)
	}
	form := &els[fi]
	action, err := p.URL.Parse(form.attr("action"))
	if err != nil {
		return nil, err
	}
	f := &Form{Action: action, Method: strings.ToUpper(form.attr("method")), Values: url.Values{}, page: p.URL.String()}
	if f.Method == "" {
		f.Method = "GET"
	}
	for i := fi + 1; i < form.end; i++ {
		n := &els[i]
		name := n.attr("name")
		if name == "" || n.has("disabled") {
			continue
		}
		switch n.a {
		case atom.Input:
			switch strings.ToLower(n.attr("type")) {
			case "checkbox", "radio":
				if n.has("checked") {
					f.Values.Add(name, n.attrOr("value", "on"))
				}
			case "submit", "button", "image", "reset", "file":
			default:
				f.Values.Add(name, n.attr("value"))
			}
		case atom.Textarea:
			// As a browser: the content, less one newline right after the tag.
			f.Values.Add(name, strings.TrimPrefix(strings.TrimPrefix(n.text, "\r"), "\n"))
		case atom.Select:
			var first, selected string
			var have, haveFirst bool
			for j := i + 1; j < n.end; j++ {
				if o := &els[j]; o.a == atom.Option {
					v := o.attrOr("value", strings.TrimSpace(o.text))
					if !haveFirst {
						first, haveFirst = v, true
					}
					if o.has("selected") && !have {
						selected, have = v, true
					}
				}
			}
			if !have {
				selected = first
			}
			f.Values.Add(name, selected)
		}
	}
	return f, nil
}

// Links returns the hrefs of the page's links that contain match, resolved.
func (p *Page) Links(match string) []string {
	var out []string
	for _, n := range p.elements() {
		if n.a == atom.A {
			if h := n.attr("href"); strings.Contains(h, match) {
				if u, err := p.URL.Parse(h); err == nil {
					out = append(out, u.String())
				}
			}
		}
	}
	return out
}

// assets are the page's style sheets and scripts on its own host.
func (p *Page) assets() []string {
	var out []string
	for _, n := range p.elements() {
		var ref string
		switch {
		case n.a == atom.Link && strings.EqualFold(n.attr("rel"), "stylesheet"):
			ref = n.attr("href")
		case n.a == atom.Script:
			ref = n.attr("src")
		}
		if ref != "" {
			if u, err := p.URL.Parse(ref); err == nil && u.Host == p.URL.Host {
				out = append(out, u.String())
			}
		}
	}
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
	for _, n := range p.elements() {
		if n.attr("id") == id {
			return n.attr(a)
		}
	}
	return ""
}

// Contains reports whether the body contains s.
func (p *Page) Contains(s string) bool { return bytes.Contains(p.Body, []byte(s)) }

// element is one element of a page, in document order: what the sessions
// read (forms, fields, links, assets), without the tree html.Parse builds,
// which was a sixth of a busy generator's CPU.
type element struct {
	a     atom.Atom
	attrs []html.Attribute
	end   int    // the index past its last descendant
	text  string // its text (kept for option and textarea)
}

func (n *element) attr(key string) string { return n.attrOr(key, "") }

func (n *element) attrOr(key, def string) string {
	for _, a := range n.attrs {
		if a.Key == key {
			return a.Val
		}
	}
	return def
}

func (n *element) has(key string) bool {
	for _, a := range n.attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// void elements have no content and no end tag.
var void = map[atom.Atom]bool{atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true,
	atom.Hr: true, atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true,
	atom.Track: true, atom.Wbr: true}

// elements is the page's elements, read once with the tokenizer: a session
// asks one page for its assets, a form and a link. An end tag closes the
// open elements down to its own (an unmatched one is ignored); the end of
// the page closes the rest.
func (p *Page) elements() []element {
	if p.els == nil {
		if p.shared != nil {
			p.els = p.shared.elements()
		} else {
			p.els = parseElements(p.Body)
		}
	}
	return p.els
}

// parseElements reads body's elements (Page.elements); the result is
// only read afterwards, so pages with the same bytes may share it.
func parseElements(body []byte) []element {
	els := make([]element, 0, 64)
	var open []int
	closeTo := func(k int) { // close open[k:] at the current end
		for _, i := range open[k:] {
			els[i].end = len(els)
		}
		open = open[:k]
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			closeTo(0)
			return els
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			n := element{a: atom.Lookup(name)}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				n.attrs = append(n.attrs, html.Attribute{Key: string(k), Val: string(v)})
			}
			if k := len(open); k > 0 && n.a == atom.Option && els[open[k-1]].a == atom.Option {
				closeTo(k - 1) // an option ends the one before, its end tag left out
			}
			els = append(els, n)
			if void[n.a] || n.a == 0 {
				els[len(els)-1].end = len(els)
			} else {
				open = append(open, len(els)-1)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			for k := len(open) - 1; k >= 0; k-- {
				if els[open[k]].a == a {
					closeTo(k)
					break
				}
			}
		case html.TextToken:
			if k := len(open); k > 0 {
				if n := &els[open[k-1]]; n.a == atom.Option || n.a == atom.Textarea {
					n.text += string(z.Text())
				}
			}
		}
	}
}
