//! End to end: the real binary in a tmux pane, driven by keys; checks the screen and that the
//! terminal is back in cooked mode on the main screen after quitting. Skips (saying so) when
//! tmux is not installed.
use crate::support;
use std::process::Command;
use std::time::Duration;

use support::tui::tmux::{self, Tmux};

#[test]
fn browse_help_and_quit_restore_the_terminal() {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the end-to-end terminal test did not run");
        return;
    }
    let cfg = tempfile::tempdir().unwrap();
    let store = support::tui::corpus("okf-v0.2/acme_retail");
    let shell = format!(
        "env FOLIO_CONFIG_DIR={} XDG_DATA_HOME={} {} {}; echo FOLIO-EXIT=$?; stty -a; sleep 30",
        cfg.path().display(),
        cfg.path().display(),
        env!("CARGO_BIN_EXE_folio"),
        store.display()
    );
    let t = Tmux::start("folio-e2e", (100, 30), &shell);
    // Wait for the status bar itself: under load the catalog can be drawn a frame before it.
    t.wait_for("Catalog (9)");
    t.wait_for("okf · acme_retail · 9 entities");
    t.keys(&["j", "j", "j"]);
    t.wait_for("metrics/gross-margin.md");
    t.keys(&["Enter", "G"]);
    t.wait_for("Backlinks (");
    t.keys(&["?"]);
    t.wait_for("Help: every key, preview first");
    t.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!t.screen().contains("Help:"), "Esc closed the help");
    t.keys(&["q"]);
    let after = t.wait_for("FOLIO-EXIT=0");
    assert!(!after.contains("Catalog (9)"), "the alternate screen was left:\n{after}");
    assert!(after.contains(" icanon") && after.contains(" echo"), "cooked mode restored:\n{after}");
}

#[test]
fn sigterm_restores_the_terminal() {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the SIGTERM terminal test did not run");
        return;
    }
    let cfg = tempfile::tempdir().unwrap();
    let store = support::tui::corpus("okf-v0.2/acme_retail");
    let shell = format!(
        "env FOLIO_CONFIG_DIR={} {} {}; echo FOLIO-EXIT=$?; stty -a; sleep 30",
        cfg.path().display(),
        env!("CARGO_BIN_EXE_folio"),
        store.display()
    );
    let t = Tmux::start("folio-e2e-term", (100, 30), &shell);
    t.wait_for("Catalog (9)");
    let shell_pid = t.cmd(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
    let children = Command::new("pgrep").args(["-P", shell_pid.trim()]).output().expect("pgrep runs");
    let folio_pid = String::from_utf8_lossy(&children.stdout).split_whitespace().next().map(str::to_string);
    let folio_pid = folio_pid.expect("folio runs under the pane's shell");
    assert!(Command::new("kill").args(["-TERM", &folio_pid]).status().unwrap().success());
    t.wait_for("FOLIO-EXIT=");
    // `stty -a` prints after the exit line: wait for its local-flags line (icanon or -icanon).
    let after = t.wait_for("icanon");
    // 128 + SIGTERM (15): the shell's convention for a process a signal ended.
    assert!(after.contains("FOLIO-EXIT=143"), "ended by SIGTERM:\n{after}");
    assert!(!after.contains("Catalog (9)") && after.contains(" icanon"), "terminal restored:\n{after}");
}

#[test]
fn recall_searches_the_demo_and_opens_a_result() {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the recall end-to-end test did not run");
        return;
    }
    let cfg = tempfile::tempdir().unwrap();
    let shell = format!(
        "env FOLIO_CONFIG_DIR={} XDG_DATA_HOME={} FOLIO_STATE_DIR={}/state {} --demo; echo FOLIO-EXIT=$?; sleep 30",
        cfg.path().display(),
        cfg.path().display(),
        cfg.path().display(),
        env!("CARGO_BIN_EXE_folio"),
    );
    let t = Tmux::start("folio-e2e-recall", (110, 32), &shell);
    t.wait_for("BROWSE");
    t.keys(&["/"]);
    t.wait_for("Recall · entities");
    t.keys(&["fraud scr"]);
    let s = t.wait_for("Fraud");
    assert!(s.contains("fraud scr"), "the query is echoed:\n{s}");
    t.keys(&["Enter"]);
    let s = t.wait_for("services/fraud-screening.md");
    assert!(!s.contains("Recall ·"), "the overlay closed:\n{s}");
    // The remembered query is offered the next time recall opens.
    t.keys(&["C-p"]);
    t.wait_for("recent queries");
    t.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
    // Remembered in the person's state folder, never inside the demo store.
    let demo = cfg.path().join("folio/demo");
    let history = folio::store::keep::personal::store_dir(&cfg.path().join("state"), &demo).join("recall-history");
    assert_eq!(std::fs::read_to_string(&history).unwrap(), "fraud scr\n", "{}", history.display());
    assert!(!demo.join(".folio/recall-history").exists());
}

/// Growing and shrinking the terminal while folio runs, then quitting, leaves nothing of folio
/// on the main screen: what the shell printed before is there, folio's frame is not (tmux 3.3a
/// kept rows of it after the window had grown).
#[test]
fn resizing_up_and_down_then_quitting_leaves_a_clean_screen() {
    if !tmux::available() {
        eprintln!("SKIPPED: tmux is not installed; the resize terminal test did not run");
        return;
    }
    let cfg = tempfile::tempdir().unwrap();
    let store = support::tui::corpus("okf-v0.2/acme_retail");
    let shell = format!(
        "echo BEFORE-FOLIO; env FOLIO_CONFIG_DIR={} FOLIO_STATE_DIR={} {} {}; echo FOLIO-EXIT=$?; sleep 30",
        cfg.path().display(),
        cfg.path().display(),
        env!("CARGO_BIN_EXE_folio"),
        store.display()
    );
    let runs = [&[(170u16, 50u16)][..], &[(170, 50), (140, 40), (180, 55)], &[(120, 35), (170, 50)]];
    for (n, sizes) in runs.into_iter().enumerate() {
        let t = Tmux::start(&format!("folio-e2e-resize{n}"), (160, 45), &shell);
        t.wait_for("okf · acme_retail · 9 entities");
        for (w, h) in sizes {
            t.cmd(&["resize-window", "-t", "e2e", "-x", &w.to_string(), "-y", &h.to_string()]);
            std::thread::sleep(Duration::from_millis(400));
            t.wait_for("Catalog (9)");
        }
        t.keys(&["q"]);
        let after = t.wait_for("FOLIO-EXIT=0");
        assert!(after.contains("BEFORE-FOLIO"), "the main screen came back:\n{after}");
        for trace in ["Catalog", "│", "─", "acme_retail"] {
            assert!(!after.contains(trace), "after {sizes:?}, {trace:?} of folio's frame is left on screen:\n{after}");
        }
    }
}
