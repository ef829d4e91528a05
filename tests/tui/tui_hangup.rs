//! folio never outlives its terminal: in each state of the UI, the terminal closing (the tmux
//! server killed, which closes the pty master as an SSH drop does), SIGHUP, SIGTERM and SIGINT
//! each end the real binary within 2 s, with 128+signal, without spinning on a dead tty, and the
//! store can be written right after (no journal or lock left behind). Also: stdout on a terminal
//! that goes away while stdin stays. Skips (saying so) when tmux or bash is not installed.
use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::tui::tmux::{self, Tmux};
use support::tui::{scratch, write};

/// How the terminal goes away.
#[derive(Clone, Copy, Debug)]
enum HangUp {
    ClosePty,
    Signal(i32),
}

/// The store a state runs on.
#[derive(Clone, Copy, PartialEq)]
enum Store {
    /// A scratch copy of the demo store (40 entities, a review inbox).
    Demo,
    /// Two notes whose only finding has a safe fix.
    Fixable,
    /// A generated store of several thousand entities, hung up while it loads.
    Big,
}

/// A UI state: its name, its store, and the steps that reach it: keys, then text shown after
/// them ("" for nothing to wait for).
struct State {
    name: &'static str,
    store: Store,
    steps: &'static [(&'static [&'static str], &'static str)],
}

const STATES: &[State] = &[
    State { name: "loading", store: Store::Big, steps: &[] },
    State { name: "ready", store: Store::Demo, steps: &[] },
    State { name: "help", store: Store::Demo, steps: &[(&["?"], "Help:")] },
    State { name: "palette", store: Store::Demo, steps: &[(&[":"], "")] },
    State { name: "recall", store: Store::Demo, steps: &[(&["/"], "Recall"), (&["-l", "pay"], "")] },
    State { name: "filter prompt", store: Store::Demo, steps: &[(&["f"], "")] },
    State { name: "review inbox", store: Store::Demo, steps: &[(&["R"], "Review inbox (13)")] },
    State {
        name: "confirm dialog",
        store: Store::Demo,
        steps: &[(&["R"], "Review inbox (13)"), (&["a"], "y apply · n/Esc cancel")],
    },
    State { name: "fix diff", store: Store::Fixable, steps: &[(&["4"], "1 fixable"), (&["j", "f"], "cancel")] },
    State {
        name: "editor with unsaved text",
        store: Store::Demo,
        steps: &[(&["e"], "Ctrl-S save"), (&["-l", "unsaved words"], "unsaved words")],
    },
    State { name: "external editor running", store: Store::Demo, steps: &[(&["E"], "")] },
    // The job-control shell reports the stop: 128 + SIGTSTP.
    State { name: "suspended", store: Store::Demo, steps: &[(&["C-z"], "FOLIO-EXIT=148")] },
];

/// utime + stime of `pid` in clock ticks, None once it has exited (gone or a zombie).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    if fields[0] == "Z" || fields[0] == "X" {
        return None;
    }
    Some(fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?)
}

/// The folio process under the pane's shell (it runs as a job of its own, for Ctrl-Z).
fn folio_pid(t: &Tmux) -> u32 {
    let shell: u32 = t.cmd(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]).trim().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap_or_default();
        let found = children
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
            .find(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "folio"));
        if let Some(pid) = found {
            return pid;
        }
        assert!(Instant::now() < deadline, "folio never started under the pane's shell");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A store for `kind` inside `dir`.
fn store_in(dir: &Path, kind: Store) -> (Option<tempfile::TempDir>, PathBuf) {
    match kind {
        Store::Demo => {
            let (d, root) = scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
            (Some(d), root)
        }
        Store::Fixable => {
            let root = dir.join("fixable");
            write(&root, "index.md", "# Notes\n\n* [Good](good.md) - fine\n* [Wiki](wiki.md) - links\n");
            write(&root, "good.md", "---\ntype: Note\ntitle: Good\ndescription: fine\n---\nSee [Wiki](wiki.md).\n");
            write(&root, "wiki.md", "---\ntype: Note\ntitle: Wiki\ndescription: links\n---\nSee [[good]].\n");
            (None, root)
        }
        Store::Big => {
            let root = dir.join("big");
            folio_gen::generate(folio::store::dialect::okf::KIND, 6000, 1, &root).unwrap();
            (None, root)
        }
    }
}

/// The pane runs folio as a job of a shell with job control (so Ctrl-Z stops it as at a
/// prompt), then prints its exit status.
fn start(tag: &str, home: &Path, root: &Path, stdout: Option<&str>) -> Tmux {
    let script = home.join("run.sh");
    let redirect = stdout.map(|t| format!(" > {t}")).unwrap_or_default();
    // The external editor is a command that waits, as a person in vi would.
    write(
        home,
        "run.sh",
        format!(
            "set -m\nenv FOLIO_CONFIG_DIR={d} XDG_DATA_HOME={d} XDG_STATE_HOME={d} XDG_CACHE_HOME={d} \
             USER=hangup EDITOR='sh -c \"sleep 60\" editor' VISUAL= {exe} '{root}'{redirect}\necho FOLIO-EXIT=$?\nsleep 30\n",
            d = home.display(),
            exe = env!("CARGO_BIN_EXE_folio"),
            root = root.display(),
        ),
    );
    let shell = format!("bash {}", script.display());
    // One tmux server per test and state: the tests run in parallel in one process.
    Tmux::start(&format!("folio-hangup-{tag}"), (100, 30), &shell)
}

/// Wait until `pid` is gone, at most 2 s; the CPU it used after `before`, in ms.
fn gone_within_2s(pid: u32, before: u64, what: &str) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut last = before;
    while let Some(ticks) = cpu_ticks(pid) {
        last = ticks;
        assert!(Instant::now() < deadline, "{what}: folio still runs 2 s after the hang-up");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sysconf has no preconditions.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    (last - before) * 1000 / ticks_per_s
}

fn hang_up_in(state: &State, how: HangUp) {
    let home = tempfile::tempdir().unwrap();
    let (_store_dir, root) = store_in(home.path(), state.store);
    let tag = match how {
        HangUp::ClosePty => "pty".to_string(),
        HangUp::Signal(sig) => format!("sig{sig}"),
    };
    let t = start(&format!("{tag}-{}", state.name.replace(' ', "-")), home.path(), &root, None);
    let pid = folio_pid(&t);
    if state.store == Store::Big {
        // Hang up while the store loads: a debug build takes seconds over 6000 entities.
        std::thread::sleep(Duration::from_millis(150));
    } else {
        t.wait_for(if state.store == Store::Demo { "40 entities" } else { " entities" });
        for (keys, shows) in state.steps {
            t.keys(keys);
            if !shows.is_empty() {
                t.wait_for(shows);
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let before = cpu_ticks(pid).expect("folio runs before the hang-up");
    let what = format!("{} after {how:?}", state.name);
    match how {
        HangUp::ClosePty => {
            t.cmd(&["kill-server"]);
        }
        HangUp::Signal(sig) => {
            // SAFETY: signals to the folio this test started. A stopped job gets SIGCONT after
            // the signal, as the shell's `kill %1` does, or the signal would wait forever.
            assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
            if state.name == "suspended" {
                assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGCONT) }, 0);
            }
        }
    }
    let cpu_ms = gone_within_2s(pid, before, &what);
    // A bound on work after the hang-up (a spinning loop takes a full core), not a timing.
    assert!(cpu_ms <= 400, "{what}: {cpu_ms} ms of CPU");
    if let (HangUp::Signal(sig), false) = (how, state.name == "suspended") {
        t.wait_for(&format!("FOLIO-EXIT={}", 128 + sig));
    }
    if state.name == "editor with unsaved text" {
        // The text typed in the editor is kept in the state dir (README, "When the terminal goes away").
        let kept: Vec<String> = std::fs::read_dir(home.path().join("folio/unsaved"))
            .map(|d| d.flatten().filter_map(|e| std::fs::read_to_string(e.path()).ok()).collect())
            .unwrap_or_default();
        assert!(kept.iter().any(|t| t.contains("unsaved words")), "{what}: unsaved text kept: {kept:?}");
    }
    if state.store == Store::Demo {
        // Nothing held on to: the store takes a write at once, with no journal to recover.
        let o = Command::new(env!("CARGO_BIN_EXE_folio"))
            .args(["set", root.to_str().unwrap(), "apis/capture-payment", "title", "Written after the hang-up"])
            .env("XDG_CACHE_HOME", home.path())
            .env("XDG_DATA_HOME", home.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{what}: the store takes a write: {err}");
        assert!(!err.contains("journal"), "{what}: nothing to recover: {err}");
    }
}

fn skip() -> bool {
    let missing = !tmux::available() || Command::new("bash").arg("-c").arg("true").output().is_err();
    if missing {
        eprintln!("SKIPPED: tmux or bash is not installed; the hang-up tests did not run");
    }
    missing
}

fn each_state(how: HangUp, only: Option<&[&str]>) {
    if skip() {
        return;
    }
    let states: Vec<&State> = STATES.iter().filter(|s| only.is_none_or(|o| o.contains(&s.name))).collect();
    // Three states at a time, each in its own terminal: a state spends most of its time
    // waiting on its screen, and one after another the four tests took 50 s of a core's idle.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                while let Some(state) = states.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    hang_up_in(state, how);
                }
            });
        }
    });
}

#[test]
fn closing_the_pty_ends_folio_in_every_state() {
    each_state(HangUp::ClosePty, None);
}

#[test]
fn sighup_ends_folio_in_every_state() {
    each_state(HangUp::Signal(libc::SIGHUP), None);
}

#[test]
fn sigterm_ends_folio_in_every_state() {
    each_state(HangUp::Signal(libc::SIGTERM), None);
}

#[test]
fn sigint_from_kill_ends_folio_with_130() {
    // In raw mode Ctrl-C is a key; SIGINT comes from `kill -INT` or before raw mode.
    each_state(HangUp::Signal(libc::SIGINT), Some(&["loading", "ready", "confirm dialog", "suspended"]));
}

#[test]
fn stdout_on_a_terminal_that_goes_away_ends_folio() {
    if skip() {
        return;
    }
    // stdin stays on a live pane; stdout goes to a second terminal, which then closes: every
    // draw would fail with EIO, and folio must end instead of drawing in a loop.
    let home = tempfile::tempdir().unwrap();
    let (_store_dir, root) = store_in(home.path(), Store::Demo);
    let out = Tmux::start("folio-hangup-stdout", (100, 30), "sleep 60");
    let tty = out.cmd(&["display-message", "-p", "-t", "e2e", "#{pane_tty}"]).trim().to_string();
    let t = start("stdout-in", home.path(), &root, Some(&tty));
    let pid = folio_pid(&t);
    out.wait_for("40 entities");
    let before = cpu_ticks(pid).expect("folio runs before its stdout goes away");
    out.cmd(&["kill-server"]);
    // A key makes folio draw; the draw (or the hang-up check before it) finds stdout gone.
    t.keys(&["j"]);
    let cpu_ms = gone_within_2s(pid, before, "stdout gone");
    assert!(cpu_ms <= 400, "stdout gone: {cpu_ms} ms of CPU");
    t.wait_for("FOLIO-EXIT=129");
}
