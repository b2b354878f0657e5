package db

// TxPrepared is the number of statements kept prepared for write
// transactions (-1 without that cache: PostgreSQL).
func TxPrepared(d *DB) int {
	if d.txPrep == nil {
		return -1
	}
	return int(d.txPrep.n.Load())
}
