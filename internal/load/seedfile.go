package load

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
)

// SeedProgress is a seed's progress bar: what every `tutti seed APP`
// shows while it loads, and how it ends (the bar finished, the ids
// written for the load scenario).
type SeedProgress struct {
	bar *progressbar.ProgressBar // nil: silent
}

// NewSeedProgress starts the bar "seeding APP" of total steps on w (nil:
// silent).
func NewSeedProgress(w io.Writer, app string, total int) *SeedProgress {
	p := &SeedProgress{}
	if w != nil {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("seeding "+app),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return p
}

// Step advances the bar by n steps.
func (p *SeedProgress) Step(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

// Done finishes the bar and writes ids to path (WriteSeedFile; "": not
// written): a seed's last lines.
func (p *SeedProgress) Done(path string, ids any) error {
	if p.bar != nil {
		p.bar.Finish()
	}
	if path == "" {
		return nil
	}
	return WriteSeedFile(path, ids)
}

// WriteSeedFile writes what a seed made for its load scenario (ids, a
// password) as JSON at path, creating its folder.
func WriteSeedFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("seed file: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o640); err != nil {
		return fmt.Errorf("seed file: %w", err)
	}
	return nil
}

// ReadSeedFile reads a file written by WriteSeedFile into v; app names the
// seed command to run when it is missing.
func ReadSeedFile(path, app string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: seed ids (run `tutti seed %s` first): %w", app, app, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: seed ids %s: %w", app, path, err)
	}
	return nil
}
