package media

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

const fileCols = "id, parent_id, kind, variant, ref, owner_id, key, size, type, sha256, status, meta, created_at"

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func insert(ctx context.Context, tx *db.Tx, f *File) (int64, error) {
	meta, err := json.Marshal(f.Meta)
	if err != nil || f.Meta == nil {
		meta = []byte("{}")
	}
	var id int64
	err = db.Scan(tx.QueryRow(ctx, `INSERT INTO media_files (parent_id, kind, variant, ref, owner_id, key, size, type, sha256, status, meta, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		nullID(f.ParentID), f.Kind, f.Variant, f.Ref, nullID(f.OwnerID), f.Key, f.Size, f.Type, f.SHA256, f.Status, string(meta), f.Created.UnixMilli()), &id)
	if err != nil {
		return 0, fmt.Errorf("media: insert: %w", err)
	}
	return id, nil
}

func scanFile(rows *sql.Rows) (*File, error) {
	var f File
	var parent, owner sql.NullInt64
	var meta string
	var created int64
	if err := rows.Scan(&f.ID, &parent, &f.Kind, &f.Variant, &f.Ref, &owner, &f.Key, &f.Size, &f.Type, &f.SHA256, &f.Status, &meta, &created); err != nil {
		return nil, db.Translate(err)
	}
	f.ParentID, f.OwnerID = parent.Int64, owner.Int64
	f.Created = time.UnixMilli(created)
	if err := json.Unmarshal([]byte(meta), &f.Meta); err != nil {
		f.Meta = Meta{}
	}
	return &f, nil
}

// get is file id and its derived files.
func get(ctx context.Context, q db.Querier, id int64) (*File, error) {
	rows, err := q.Query(ctx, `SELECT `+fileCols+` FROM media_files WHERE id = ? OR parent_id = ? ORDER BY id`, id, id)
	if err != nil {
		return nil, fmt.Errorf("media: get %d: %w", id, err)
	}
	defer rows.Close()
	var orig *File
	derived := map[string]*File{}
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("media: get %d: %w", id, err)
		}
		if f.ID == id {
			orig = f
		} else {
			derived[f.Variant] = f
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("media: get %d: %w", id, err)
	}
	if orig == nil {
		return nil, errs.ErrNotFound
	}
	orig.Derived = derived
	return orig, nil
}

func latestReady(ctx context.Context, q db.Querier, kind string, ref int64) (int64, error) {
	var id int64
	err := db.Scan(q.QueryRow(ctx, `SELECT id FROM media_files WHERE parent_id IS NULL AND kind = ? AND ref = ? AND status = 'ready'
		ORDER BY id DESC LIMIT 1`, kind, ref), &id)
	return id, err
}

// hasNewer reports whether (kind, ref) has an upload newer than id that
// has not failed: id is superseded.
func hasNewer(ctx context.Context, q db.Querier, kind string, ref, id int64) (bool, error) {
	var n int
	err := db.Scan(q.QueryRow(ctx, `SELECT COUNT(*) FROM media_files WHERE parent_id IS NULL AND kind = ? AND ref = ? AND id > ? AND status <> 'failed'`,
		kind, ref, id), &n)
	return n > 0, err
}

func countPending(ctx context.Context, q db.Querier) (int, error) {
	var n int
	err := db.Scan(q.QueryRow(ctx, `SELECT COUNT(*) FROM media_files WHERE status = 'pending'`), &n)
	return n, err
}

// setStatus moves file id from status from to to; false if it was not in from.
func setStatus(ctx context.Context, tx *db.Tx, id int64, from, to string, meta Meta) (bool, error) {
	q, args := `UPDATE media_files SET status = ? WHERE id = ? AND status = ?`, []any{to, id, from}
	if meta != nil {
		b, _ := json.Marshal(meta)
		q, args = `UPDATE media_files SET status = ?, meta = ? WHERE id = ? AND status = ?`, []any{to, string(b), id, from}
	}
	res, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// deleteWhere deletes the originals matched by where (a condition on
// media_files as o, with args) and their derived files, returning the keys.
func deleteWhere(ctx context.Context, tx *db.Tx, where string, args ...any) ([]string, error) {
	ids := `SELECT o.id FROM media_files o WHERE o.parent_id IS NULL AND ` + where
	all := append(append([]any{}, args...), args...)
	rows, err := tx.Query(ctx, `SELECT key FROM media_files WHERE id IN (`+ids+`) OR parent_id IN (`+ids+`)`, all...)
	if err != nil {
		return nil, err
	}
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if _, err := tx.Exec(ctx, `DELETE FROM media_files WHERE parent_id IN (`+ids+`)`, args...); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM media_files WHERE id IN (`+ids+`)`, args...); err != nil {
		return nil, err
	}
	return keys, nil
}

// olderKeys are the keys of the uploads of (kind, ref) older than below
// and of their derived files.
func olderKeys(ctx context.Context, q db.Querier, kind string, ref, below int64) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT d.key FROM media_files o JOIN media_files d ON d.id = o.id OR d.parent_id = o.id
		WHERE o.parent_id IS NULL AND o.kind = ? AND o.ref = ? AND o.id < ?`, kind, ref, below)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// deleteOlder deletes the uploads of (kind, ref) older than below (0: all).
func deleteOlder(ctx context.Context, tx *db.Tx, kind string, ref, below int64) ([]string, error) {
	if below == 0 {
		return deleteWhere(ctx, tx, `o.kind = ? AND o.ref = ?`, kind, ref)
	}
	return deleteWhere(ctx, tx, `o.kind = ? AND o.ref = ? AND o.id < ?`, kind, ref, below)
}

// deleteOne deletes upload id and its derived files.
func deleteOne(ctx context.Context, tx *db.Tx, id int64) ([]string, error) {
	return deleteWhere(ctx, tx, `o.id = ?`, id)
}
