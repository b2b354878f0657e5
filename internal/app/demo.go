package app

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/module"
)

// LoadDemo loads the demo data set (`tutti serve --demo`): the user "demo"
// (its password goes to the log when it is created), then every app's demo
// (module.Demoer). Each part adds nothing if it is there already, so a
// second start on the same data neither fails nor duplicates.
func (m *Main) LoadDemo(ctx context.Context) error {
	pw, err := m.Auth.Demo(ctx)
	if err != nil {
		return fmt.Errorf("demo user: %w", err)
	}
	if pw != "" {
		m.Log.Info("demo user created", "username", "demo", "password", pw)
	}
	for i, a := range m.Apps {
		if d, ok := a.(module.Demoer); ok {
			if err := d.LoadDemo(ctx, m.Log); err != nil {
				return fmt.Errorf("demo data of %s: %w", Modules()[i].Name, err)
			}
		}
	}
	return nil
}
