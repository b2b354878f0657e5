package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// StaticFS is the shared stylesheet and scripts, served at /static/.
func StaticFS() fs.FS {
	sub, _ := fs.Sub(static, "static")
	return sub
}
