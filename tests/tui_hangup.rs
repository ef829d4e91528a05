//! folio never outlives its terminal: in each state of the UI, the terminal closing (the tmux
//! server killed, which closes the pty master as an SSH drop does), SIGHUP and SIGTERM each end
//! the real binary within 2 s, with 128+signal for signals, without spinning on a dead tty.
//! Skips (saying so) when tmux is not installed.
mod tui_support;
use std::time::{Duration, Instant};

use tui_support::tmux::{self, Tmux};

/// How the terminal goes away.
#[derive(Clone, Copy, Debug)]
enum HangUp {
    ClosePty,
    Signal(i32),
}

/// A UI state: its name, the keys that reach it from the catalog, and text it shows.
struct State {
    name: &'static str,
    keys: &'static [&'static str],
    shows: &'static str,
}

const STATES: &[State] = &[
    State { name: "ready", keys: &[], shows: "Catalog (40)" },
    State { name: "help", keys: &["?"], shows: "Help:" },
    State { name: "palette", keys: &[":"], shows: "" },
    State { name: "recall", keys: &["/", "-l", "pay"], shows: "pay" },
    State { name: "filter prompt", keys: &["f"], shows: "" },
    State { name: "review inbox", keys: &["R"], shows: "" },
    State { name: "editor with unsaved text", keys: &["e", "-l", "unsaved words"], shows: "unsaved words" },
    State { name: "external editor running", keys: &["E"], shows: "" },
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

fn hang_up_in(state: &State, how: HangUp) {
    let home = tempfile::tempdir().unwrap();
    // The external editor is a command that waits, as a person in vi would.
    let shell = format!(
        "exec env FOLIO_CONFIG_DIR={d} XDG_DATA_HOME={d} XDG_STATE_HOME={d} EDITOR='sh -c \"sleep 60\" editor' VISUAL= {exe} --demo",
        d = home.path().display(),
        exe = env!("CARGO_BIN_EXE_folio"),
    );
    // One tmux server per test and state: the three tests run in parallel in one process.
    let tag = match how {
        HangUp::ClosePty => "pty".to_string(),
        HangUp::Signal(sig) => format!("sig{sig}"),
    };
    let t = Tmux::start(&format!("folio-hangup-{tag}-{}", state.name.replace(' ', "-")), (100, 30), &shell);
    t.wait_for("Catalog (40)");
    let pid: u32 = t.cmd(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]).trim().parse().unwrap();
    t.keys(state.keys);
    if !state.shows.is_empty() {
        t.wait_for(state.shows);
    }
    std::thread::sleep(Duration::from_millis(300));
    let before = cpu_ticks(pid).expect("folio runs before the hang-up");
    match how {
        HangUp::ClosePty => {
            t.cmd(&["kill-server"]);
        }
        // SAFETY: a signal to the folio this test started.
        HangUp::Signal(sig) => assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0),
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut last = before;
    while let Some(ticks) = cpu_ticks(pid) {
        last = ticks;
        assert!(Instant::now() < deadline, "{}: folio still runs 2 s after {how:?}", state.name);
        std::thread::sleep(Duration::from_millis(20));
    }
    // A bound on work after the hang-up (a spinning loop takes a full core), not a timing.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    let cpu_ms = (last - before) * 1000 / ticks_per_s;
    assert!(cpu_ms <= 400, "{}: {cpu_ms} ms of CPU after {how:?}", state.name);
    if state.shows == "unsaved words" {
        // The text typed in the editor is kept in the state dir (README, "Keys").
        let kept: Vec<String> = std::fs::read_dir(home.path().join("folio/unsaved"))
            .map(|d| d.flatten().filter_map(|e| std::fs::read_to_string(e.path()).ok()).collect())
            .unwrap_or_default();
        assert!(kept.iter().any(|t| t.contains("unsaved words")), "unsaved text kept after {how:?}: {kept:?}");
    }
}

fn each_state(how: HangUp) {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the hang-up tests did not run");
        return;
    }
    for state in STATES {
        hang_up_in(state, how);
    }
}

#[test]
fn closing_the_pty_ends_folio_in_every_state() {
    each_state(HangUp::ClosePty);
}

#[test]
fn sighup_ends_folio_in_every_state() {
    each_state(HangUp::Signal(libc::SIGHUP));
}

#[test]
fn sigterm_ends_folio_in_every_state() {
    each_state(HangUp::Signal(libc::SIGTERM));
}
