package session

import (
	"context"
	"database/sql/driver"
	"os"
	"reflect"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Closing a SQLite store does not checkpoint its write-ahead log (WAL)
// into the database file. SQLite's last connection to close does that by
// default: it copies the pages of the log into the file, syncs both (two
// fsyncs) and deletes the -wal and -shm files, all after the run's last
// line and before the process can exit; it was a third of the store's
// time in a short run. Every commit is already in the log, which the next
// process to open the store reads (and a crash of the process leaves
// behind all the same), so nothing committed is lost. What bounds the
// log instead:
//
//   - SQLite's own automatic checkpoint, by the commit that takes the log
//     past 1000 pages, as before (within a long session);
//   - boundWAL, when a store is opened: a log of more than walLimit bytes
//     is checkpointed then, in the background of a run (the runner opens
//     its store while the plugins start). Reading the log when a process
//     opens the store costs about 2 µs a page, so a small log costs less
//     than a checkpoint at every close, and a checkpoint every few runs
//     keeps it small.
//
// The cost: the last commits of a run reach the disk, rather than the
// kernel's cache, at the next checkpoint or when the kernel writes them
// back (synchronous=NORMAL syncs the log at checkpoints only). A power
// loss may lose them, as it could lose those of a run that was killed;
// the store stays consistent (see docs/reliability.md).

// walLimit is the size of the -wal file beyond which opening the store
// checkpoints it (about 125 pages, 6 short runs).
const walLimit = 512 << 10

// boundWAL checkpoints the log when it holds more than walLimit bytes. The
// checkpoint is PASSIVE: it copies what no other process's reader still
// needs and waits for nobody. The writer that follows restarts the log,
// truncated to walLimit. A failure is left to the next open: the log is
// only bigger than it should be.
func (s *Store) boundWAL(ctx context.Context) {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil || fi.Size() <= walLimit {
		return
	}
	_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
}

// sqliteDriver opens the connections of SQLite stores: modernc.org/sqlite's
// driver, with a hook of this package's own (a Driver of its own, so that
// the hook applies to the store's connections only).
var sqliteDriver = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		noCheckpointOnClose(c)
		return nil
	})
	return d
}()

// connector opens connections to one SQLite database (a dsn).
type connector string

func (c connector) Connect(context.Context) (driver.Conn, error) { return sqliteDriver.Open(string(c)) }
func (c connector) Driver() driver.Driver                        { return sqliteDriver }

// noCheckpointOnClose sets SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on the driver
// connection c and reports whether it could. The driver does not expose
// sqlite3_db_config; its connection's handle is the field db (read by
// reflection, as a number: nothing is written through reflect or unsafe).
// A driver without that field closes with a checkpoint, as SQLite does by
// default: TestCloseKeepsTheLog fails then, and says so.
func noCheckpointOnClose(c any) bool {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return false
	}
	tls := libc.NewTLS()
	defer tls.Close()
	const vaSlot = 8 // libc.VaList's stride per argument
	va := libc.Xmalloc(tls, 2*vaSlot)
	if va == 0 {
		return false
	}
	defer libc.Xfree(tls, va)
	rc := sqlite3.Xsqlite3_db_config(tls, uintptr(f.Uint()), sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, libc.VaList(va, int32(1), uintptr(0)))
	return rc == sqlite3.SQLITE_OK
}
