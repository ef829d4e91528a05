//! The real binary in a tmux pane, driven by keys and read back with capture-pane (the e2e
//! tests). Each session gets its own server, on a socket in a folder of its own: killed and
//! removed on drop (a socket named with `-L` stayed in tmux's folder after every run).
use std::process::Command;
use std::time::{Duration, Instant};

/// The gap after a key other than Escape: keys arrive apart, as typed, without the tests
/// spending their time asleep.
const KEY_GAP: Duration = Duration::from_millis(50);
/// How often `wait_for` reads the screen (one capture-pane, a few milliseconds).
const POLL: Duration = Duration::from_millis(20);
/// How long `wait_for` waits, once the needle shows, for the screen to stop changing.
const SETTLE: Duration = Duration::from_secs(1);

pub struct Tmux {
    socket: std::path::PathBuf,
    /// The socket's folder, removed after the server is killed.
    _dir: tempfile::TempDir,
    /// Pause after an Escape (so it is not read as Alt with the next key) and after typed text
    /// (a recall or filter answers it in the background: the next key finds it answered);
    /// other keys are followed by `KEY_GAP` at most.
    pub key_pause: Duration,
    /// How long `wait_for` waits before failing.
    pub patience: Duration,
}

/// Whether tmux is installed; when not, the caller prints why it skips.
pub fn available() -> bool {
    Command::new("tmux").arg("-V").output().is_ok()
}

impl Tmux {
    /// A detached session named `e2e`, `w`×`h`, running `shell`, on a socket named after `name`.
    pub fn start(name: &str, (w, h): (u16, u16), shell: &str) -> Tmux {
        let dir = socket_dir();
        let t = Tmux {
            socket: dir.path().join(name),
            _dir: dir,
            key_pause: Duration::from_millis(120),
            patience: Duration::from_secs(15),
        };
        let now = format!("FOLIO_NOW={}", super::PINNED_NOW);
        t.cmd(&["new-session", "-d", "-s", "e2e", "-x", &w.to_string(), "-y", &h.to_string(), "-e", &now, shell]);
        t
    }

    pub fn cmd(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Send each argument as one `send-keys` (tmux key names, or `-l` for literal text).
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.cmd(&["send-keys", "-t", "e2e", k]);
            std::thread::sleep(if needs_pause(k) { self.key_pause } else { self.key_pause.min(KEY_GAP) });
        }
    }

    pub fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p", "-t", "e2e"])
    }

    /// Wait until the screen shows `needle`, then until two captures in a row agree (a capture
    /// can land while a frame is half drawn: the needle's line there, the rows below it not yet),
    /// for `SETTLE` at most (a screen that keeps moving, a spinner, is taken as it is); fails
    /// showing the screen when the needle never shows.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + self.patience;
        let mut s = loop {
            let s = self.screen();
            if s.contains(needle) || Instant::now() > deadline {
                assert!(s.contains(needle), "waited for {needle:?}; screen:\n{s}");
                break s;
            }
            std::thread::sleep(POLL);
        };
        let settle_by = Instant::now() + SETTLE;
        loop {
            std::thread::sleep(POLL);
            let next = self.screen();
            if next == s || !next.contains(needle) || Instant::now() > settle_by {
                // A frame that no longer shows the needle moved on: the last one that did is the answer.
                return if next.contains(needle) { next } else { s };
            }
            s = next;
        }
    }
}

/// A folder for one server's socket: under the temporary folder, or under /tmp when that path
/// would leave too little of a socket path's 107 bytes for the name.
fn socket_dir() -> tempfile::TempDir {
    let short = std::env::temp_dir().as_os_str().len() <= 60;
    let made = if short { tempfile::tempdir() } else { tempfile::tempdir_in("/tmp") };
    made.expect("a folder for tmux's socket")
}

/// Whether `key` is followed by the whole `key_pause`: an Escape, or text typed with `-l`
/// (anything but a one-character key or a tmux key name such as `Enter`, `PageDown`, `C-x`).
fn needs_pause(key: &str) -> bool {
    if matches!(key, "Escape" | "Esc" | "C-[") {
        return true;
    }
    let named = key.chars().count() == 1
        || key == "-l"
        || ["C-", "M-", "S-"].iter().any(|p| key.starts_with(p))
        || (key.starts_with(|c: char| c.is_ascii_uppercase()) && key.chars().all(|c| c.is_ascii_alphanumeric()));
    !named
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.cmd(&["kill-server"]);
    }
}
