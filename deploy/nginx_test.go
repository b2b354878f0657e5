package deploy

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// node is an nginx directive; a block's directives are its children.
type node struct {
	name     string
	args     []string
	children []*node
}

func (n *node) String() string {
	if n == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s %s {%d directives}", n.name, strings.Join(n.args, " "), len(n.children))
}

// get returns the arguments of n's first child directive called name.
func (n *node) get(name string) string {
	if all := n.all(name); len(all) > 0 {
		return all[0]
	}
	return ""
}

func (n *node) all(name string) []string {
	if n == nil {
		return nil
	}
	var out []string
	for _, c := range n.children {
		if c.name == name {
			out = append(out, strings.Join(c.args, " "))
		}
	}
	return out
}

// block returns the child block whose directive and arguments are header.
func (n *node) block(header string) *node {
	for _, c := range n.children {
		if c.children != nil && strings.TrimSpace(c.name+" "+strings.Join(c.args, " ")) == header {
			return c
		}
	}
	return nil
}

// server returns the server block whose first listen argument is listen.
func (n *node) server(listen string) *node {
	for _, c := range n.children {
		if c.name == "server" && strings.HasPrefix(c.get("listen"), listen+" ") || c.get("listen") == listen {
			return c
		}
	}
	return nil
}

// location picks the location of server block n for path as nginx does:
// an exact match, else the first matching regex, else the longest prefix.
func (n *node) location(path string) *node {
	var prefix *node
	longest := -1
	for _, c := range n.children {
		if c.name != "location" || len(c.args) == 0 {
			continue
		}
		switch c.args[0] {
		case "=":
			if c.args[1] == path {
				return c
			}
		case "~", "~*":
			expr := c.args[1]
			if c.args[0] == "~*" {
				expr = "(?i)" + expr
			}
			if regexp.MustCompile(expr).MatchString(path) {
				return c
			}
		default:
			p := c.args[len(c.args)-1]
			if !strings.HasPrefix(p, "@") && strings.HasPrefix(path, p) && len(p) > longest {
				prefix, longest = c, len(p)
			}
		}
	}
	return prefix
}

// parseNginx reads the template into a tree (its root holds the upstream and
// server blocks).
func parseNginx(t *testing.T) *node {
	t.Helper()
	toks := tokenize(readFile(t, "nginx/tutti.conf.tmpl"))
	root := &node{children: []*node{}}
	stack := []*node{root}
	var cur []string
	for _, tok := range toks {
		top := stack[len(stack)-1]
		switch tok {
		case "@@SERVERS@@": // the upstream's server lines, one placeholder
			top.children = append(top.children, &node{name: tok})
		case ";":
			if len(cur) == 0 {
				t.Fatal("nginx: empty directive")
			}
			top.children = append(top.children, &node{name: cur[0], args: cur[1:]})
			cur = nil
		case "{":
			if len(cur) == 0 {
				t.Fatal("nginx: block without a name")
			}
			b := &node{name: cur[0], args: cur[1:], children: []*node{}}
			top.children = append(top.children, b)
			stack = append(stack, b)
			cur = nil
		case "}":
			if len(cur) != 0 || len(stack) == 1 {
				t.Fatalf("nginx: unbalanced } after %v", cur)
			}
			stack = stack[:len(stack)-1]
		default:
			cur = append(cur, tok)
		}
	}
	if len(stack) != 1 || len(cur) != 0 {
		t.Fatalf("nginx: unclosed block or directive (%v)", cur)
	}
	return root
}

// tokenize splits nginx configuration into words, quoted strings and the
// punctuation ; { }, dropping comments.
func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == ';' || c == '{' || c == '}':
			toks = append(toks, string(c))
			i++
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			toks = append(toks, s[i+1:min(j, len(s))])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n;{}#", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}
