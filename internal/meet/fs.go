package meet

import "io/fs"

func subFS(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}
