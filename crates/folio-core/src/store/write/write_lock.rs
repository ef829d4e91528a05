//! One writer per store at a time, across processes and threads: an advisory `flock` on a file
//! in folio's state folder, held while a plan is applied or an interrupted write recovered.
//! Without it a second folio could take the first one's unfinished journal for a crash's and
//! roll it back under it. The kernel releases the lock when its holder dies, so a crash never
//! leaves a stale lock behind.
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::fs_ops;
use super::state::State;

/// How long a writer waits for another to finish before it gives up and says so.
const PATIENCE: Duration = Duration::from_secs(30);

/// The lock, held until dropped.
#[derive(Debug)]
pub struct WriteLock {
    _file: File,
}

impl WriteLock {
    /// Wait (up to `PATIENCE`) until no other writer holds the store at `state`.
    pub fn acquire(state: &State) -> io::Result<WriteLock> {
        fs_ops::create_dir_all(&state.dir)?;
        // `*.tmp` is in the state folder's .gitignore since its first version.
        let path = state.dir.join("write-lock.tmp");
        let file =
            fs_ops::open_for_lock(&path, || OpenOptions::new().create(true).truncate(false).write(true).open(&path))?;
        let deadline = Instant::now() + PATIENCE;
        loop {
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(WriteLock { _file: file });
            }
            let err = io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(err);
            }
            if Instant::now() > deadline {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "another folio process has been writing to this store for {} s ({} is locked); \
                         nothing was written — try again when it has finished",
                        PATIENCE.as_secs(),
                        path.display()
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let state = State { dir: dir.path().join(".folio") };
        let first = WriteLock::acquire(&state).unwrap();
        let state2 = state.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let lock = WriteLock::acquire(&state2).unwrap();
            tx.send(()).unwrap();
            drop(lock);
        });
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "the second writer waits");
        drop(first);
        rx.recv_timeout(Duration::from_secs(10)).expect("and goes on once the first is done");
        waiter.join().unwrap();
    }
}
