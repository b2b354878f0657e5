package waitlist

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// What the external tests (draw_test.go, which needs race's migrations)
// reach of the store.

// RankChunk is how many entries one statement ranks.
const RankChunk = rankChunk

// Shuffler is the sweep's random order.
var Shuffler = shuffler

// Draw is the store's draw on d, telling nobody.
func Draw(ctx context.Context, d *db.DB, now, until time.Time, shuffle func(n int, swap func(i, j int))) (int, error) {
	return (&store{db: d}).draw(ctx, now, until, shuffle, nil)
}
