package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
)

// SettleMedia waits until m's uploads are derived (media.Service.Wait:
// their jobs run, here or by a worker), so that a test asserts what a page
// shows once a picture is ready, without sleeping.
func SettleMedia(t testing.TB, m *app.Main) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Media.Wait(ctx); err != nil {
		t.Fatalf("waiting for the uploads' jobs: %v", err)
	}
}
