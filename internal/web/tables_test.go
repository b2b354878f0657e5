package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scrollBox is the opening tag a table must sit in: a box that scrolls
// sideways (tutti.css .table-scroll).
var scrollBox = regexp.MustCompile(`<div class="table-scroll">\s*$`)

// Every table of every app's pages sits directly in a box that scrolls
// sideways, so that on a phone a wide table scrolls inside that box and
// never widens the page (the browser tests measure the pages; this keeps
// a new table from forgetting its box).
func TestEveryTableScrollsInItsOwnBox(t *testing.T) {
	var files, tables int
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".templ") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		src := string(b)
		for i := strings.Index(src, "<table"); i >= 0; {
			tables++
			if !scrollBox.MatchString(src[:i]) {
				line := strings.Count(src[:i], "\n") + 1
				t.Errorf("%s:%d: a <table> not directly inside <div class=\"table-scroll\">", path, line)
			}
			next := strings.Index(src[i+1:], "<table")
			if next < 0 {
				break
			}
			i += 1 + next
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 || tables < 5 {
		t.Fatalf("read %d templates with %d tables: the walk missed the apps' templates", files, tables)
	}
}
