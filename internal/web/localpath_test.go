package web_test

import (
	"testing"

	"github.com/tutti-dev/tutti/internal/web"
)

func TestLocalPath(t *testing.T) {
	cases := []struct{ in, want string }{
		{"/meet/", "/meet/"},
		{"/roar/?tab=mine#x", "/roar/?tab=mine#x"},
		{"", ""},
		{"//evil.example/", ""},
		{"/\\evil.example", ""},
		{"https://evil.example/", ""},
		{"javascript:alert(1)", ""},
		{"meet/", ""},
		{"/a\r\nSet-Cookie: x=1", ""},
		{"/\tevil", ""},
	}
	for _, c := range cases {
		if got := web.LocalPath(c.in); got != c.want {
			t.Errorf("LocalPath(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}
