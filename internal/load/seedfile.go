package load

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

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
