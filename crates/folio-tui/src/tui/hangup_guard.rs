//! A watcher for the hang-up the terminal loop cannot see in time. crossterm reads the tty until
//! a read would block, and a hung-up tty answers every read with 0 bytes: a hang-up that lands
//! while crossterm is inside its read spins there for ever, at full CPU. When the terminal is
//! gone, the watcher puts an empty non-blocking pipe on stdin (the descriptor crossterm reads):
//! the next read would block, crossterm returns, and the loop finds stdin is no longer a
//! terminal and ends as after any hang-up.
use std::time::Duration;

/// How often the watcher looks; a stuck loop ends at most this long after the hang-up.
const EVERY: Duration = Duration::from_millis(100);

/// Start the watcher when stdin is the terminal (crossterm then reads stdin itself).
pub fn spawn() {
    // SAFETY: isatty on the process's own stdin.
    if unsafe { libc::isatty(0) } != 1 {
        return;
    }
    let _ = std::thread::Builder::new().name("folio-hangup".into()).spawn(|| {
        loop {
            std::thread::sleep(EVERY);
            if super::terminal_gone() {
                detach_stdin();
                return;
            }
        }
    });
}

/// Replace stdin by the read end of a pipe whose write end stays open (never closed, so reads
/// answer "would block", not end of file).
fn detach_stdin() {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors; dup2 onto the process's own stdin. The write end is
    // kept open on purpose for the rest of the process's life.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) == 0 {
            libc::dup2(fds[0], 0);
            libc::close(fds[0]);
        }
    }
}
