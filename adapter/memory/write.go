package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// change applies a change to the state under the lock: fn appends the log
// records of the change to buf when persist is set and returns how many it
// appended. change writes them to the log in one write, schedules a snapshot
// when one is due, and with SyncAlways returns after the fsync. When the
// write fails, the log is cut back to before it (cutBackLocked) and undo (if
// not nil) takes the change back from the state in RAM, still under the
// lock, so that the error means "not applied".
func (m *Memory) change(fn func(buf []byte, persist bool) ([]byte, int), undo func()) error {
	if m.opts.ReadOnly {
		return ErrReadOnly
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.repairLocked()
	if m.failed != nil {
		err := m.failed
		m.mu.Unlock()
		return err
	}
	buf, n := fn(m.buf[:0], m.logFile != nil)
	m.buf = buf
	var seq uint64
	if n > 0 {
		if _, err := m.logFile.Write(buf); err != nil {
			m.failed = fmt.Errorf("append to context memory log %s: %w", m.logFile.Name(), err)
			m.cutBackLocked() // else repairLocked cuts it back once space returns
			if undo != nil {
				undo()
			}
			m.mu.Unlock()
			return m.failed
		}
		m.logSize += int64(len(buf))
		m.records += int64(n)
		m.appended += int64(n)
		m.writeSeq++
		seq = m.writeSeq
	}
	if cap(m.buf) > 1<<20 {
		m.buf = nil // do not keep one huge batch's buffer forever
	}
	// Add to bg while holding mu and not closed: Close waits for bg only
	// after setting closed under mu, so this Add happens before that Wait.
	compact := m.records >= int64(m.opts.SnapshotEvery) && m.compacting.CompareAndSwap(false, true)
	if compact {
		m.bg.Add(1)
	}
	m.mu.Unlock()

	if seq > 0 && m.opts.Sync == SyncAlways {
		if err := m.syncTo(seq); err != nil {
			return err
		}
	}
	if compact {
		go func() {
			defer m.bg.Done()
			defer m.compacting.Store(false)
			m.compactMu.Lock()
			defer m.compactMu.Unlock()
			m.mu.RLock()
			closed := m.closed
			due := m.records >= int64(m.opts.SnapshotEvery)
			m.mu.RUnlock()
			if closed {
				return // Close writes the final snapshot
			}
			if !due {
				return // Snapshot or Clear compacted since this one was scheduled
			}
			if err := m.compactLocked(); err != nil {
				m.log.Error("context memory: snapshot failed; the log keeps growing until one succeeds", "dir", m.dir, "err", err)
			}
		}()
	}
	return nil
}

// Sync fsyncs the log now.
func (m *Memory) Sync() error {
	m.mu.RLock()
	seq, closed := m.writeSeq, m.closed
	m.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return m.syncTo(seq)
}

// syncTo returns once log writes up to seq are fsynced; concurrent callers share an fsync.
func (m *Memory) syncTo(seq uint64) error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	if m.syncedSeq.Load() >= seq {
		return nil
	}
	m.mu.RLock()
	f, target := m.logFile, m.writeSeq
	m.mu.RUnlock()
	if f == nil {
		return nil
	}
	if err := f.Sync(); err != nil {
		err = fmt.Errorf("fsync context memory log %s: %w", f.Name(), err)
		m.mu.Lock()
		m.failed = err
		m.mu.Unlock()
		return err
	}
	m.syncedSeq.Store(target)
	return nil
}

// WriteErr reports why the memory cannot store anything now (nil: it can).
// After a failed write (a full disk) it first retries, at most once a
// second, to make the log writable again, so writing resumes by itself once
// space returns. A healthy memory answers under the read lock (the import
// path asks before every count, beside readers).
func (m *Memory) WriteErr() error {
	if m.opts.ReadOnly || m.dir == "" {
		return nil
	}
	m.mu.RLock()
	healthy := m.failed == nil
	m.mu.RUnlock()
	if healthy {
		return nil // nothing to repair
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repairLocked()
	return m.failed
}

// repairLocked (mu held) tries, at most once a second, to make the log
// writable after a failed write or fsync: once a probe of probeBytes can be
// written and synced in the directory, it cuts the log back to its last
// complete record (a failed write may have left part of one) and fsyncs it.
// The state in RAM keeps the changes whose records were not written; the next
// snapshot stores them.
func (m *Memory) repairLocked() {
	if m.failed == nil || m.logFile == nil || m.closed || time.Since(m.lastRepair) < time.Second {
		return
	}
	m.lastRepair = time.Now()
	if err := probeSpace(m.dir); err != nil {
		return
	}
	if err := m.cutBackLocked(); err != nil {
		return
	}
	m.log.Info("context memory is writable again", "dir", m.dir, "after", m.failed)
	m.failed = nil
}

// cutBackLocked (mu held, or no writer left) cuts the log back to its last
// complete record and fsyncs it: the complete records of a write that failed
// partway would otherwise come back at the next Open, though their changes
// were taken back. Shrinking a file needs no free space, so this usually
// succeeds on a full disk too.
func (m *Memory) cutBackLocked() error {
	if err := m.logFile.Truncate(m.logSize); err != nil {
		return fmt.Errorf("cut context memory log %s back to %d bytes: %w", m.logFile.Name(), m.logSize, err)
	}
	if err := m.logFile.Sync(); err != nil {
		return fmt.Errorf("fsync context memory log %s: %w", m.logFile.Name(), err)
	}
	return nil
}

// probeBytes is the free space repairLocked wants to see before writing again.
const probeBytes = 64 << 10

// probeSpace writes, fsyncs and removes a probe file of probeBytes in dir (a
// .tmp name: Open removes a leftover).
func probeSpace(dir string) error {
	path := filepath.Join(dir, "space-probe.tmp")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, probeBytes))
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	os.Remove(path)
	return err
}
