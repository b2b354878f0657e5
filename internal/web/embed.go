package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// StaticFS is the shared stylesheet and scripts, served at /static/.
func StaticFS() fs.FS { return EmbeddedStatic(static) }

// EmbeddedStatic is the static/ directory embedded in f (an app's assets).
func EmbeddedStatic(f fs.FS) fs.FS {
	sub, err := fs.Sub(f, "static")
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}
