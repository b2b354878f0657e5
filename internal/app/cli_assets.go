package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/tutti-dev/tutti/internal/web"
)

// coreAssets is the core's own static files, served at /static/.
func coreAssets() (*web.Assets, error) { return web.NewAssets(web.StaticFS(), "/static/") }

// allAssets are every static tree the server serves, built as the server
// builds them: the core's (/static/) and each module's Assets
// (/NAME/static/), from Modules.
func allAssets() ([]*web.Assets, error) {
	core, err := coreAssets()
	if err != nil {
		return nil, err
	}
	all := []*web.Assets{core}
	for _, m := range Modules() {
		a, err := m.Assets()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		if a != nil {
			all = append(all, a)
		}
	}
	return all, nil
}

// ExportAssets writes every tree's files under their content-hashed names
// (and .gz copies) into dir, laid out as their URLs: nginx with `root DIR`
// and `gzip_static on` then serves /static/ and /NAME/static/ without Go.
// It returns the paths written, relative to dir.
func ExportAssets(dir string) ([]string, error) {
	trees, err := allAssets()
	if err != nil {
		return nil, err
	}
	var all []string
	for _, a := range trees {
		written, err := a.Export(dir)
		all = append(all, written...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

const assetsUsage = `usage: tutti assets export DIR

Writes the static files of the core (/static/) and of every app
(/NAME/static/) into DIR under the content-hashed names pages reference,
with .gz copies, so that nginx serves them:

    location ~ ^/(static|[a-z]+/static)/ {
        root DIR;
        gzip_static on;
        add_header Cache-Control "public, max-age=31536000, immutable";
        try_files $uri @tutti;
    }

Export again after every upgrade, before the new instances take traffic
(names are by content, so old and new files live side by side).
`

// assetsCmd is `tutti assets export DIR`.
func assetsCmd(_ context.Context, env Env, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(env.Stdout, assetsUsage)
		return nil
	}
	if len(args) != 2 || args[0] != "export" || args[1] == "" {
		fmt.Fprint(env.Stderr, assetsUsage)
		return errors.New("want: tutti assets export DIR")
	}
	written, err := ExportAssets(args[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %d files to %s\n", len(written), args[1])
	return nil
}
