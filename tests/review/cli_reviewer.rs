//! Issue 26 item 5 on the CLI: without `--as` and with `$USER` unset, folio asks once on the
//! terminal who is reviewing and remembers it in the user's config dir (not the store); the
//! next run uses it; without a terminal and nothing remembered it says it records human:unknown.
use crate::support;
use crate::support::tui::pty;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

fn demo() -> (tempfile::TempDir, std::path::PathBuf) {
    support::scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"))
}

/// `folio review ROOT approve apis/refunds-v2 --dry-run` with no user and `config` as the
/// user's config dir, stdin not a terminal.
fn dry_approve(root: &Path, config: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["review", root.to_str().unwrap(), "approve", "apis/refunds-v2", "--dry-run"])
        .env("NO_COLOR", "1")
        .env("USER", "")
        .env_remove("USERNAME")
        .env("FOLIO_CONFIG_DIR", config)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn nobody_known_is_asked_once_on_the_terminal_and_remembered_outside_the_store() {
    let (_dir, root) = demo();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");

    let o = dry_approve(&root, &config, home.path());
    assert!(String::from_utf8_lossy(&o.stdout).contains("(human:unknown)"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("$USER is unset and no reviewer is remembered"));

    let env: Vec<(&str, &OsStr)> = vec![
        ("USER", OsStr::new("")),
        ("USERNAME", OsStr::new("")),
        ("NO_COLOR", OsStr::new("1")),
        ("FOLIO_CONFIG_DIR", config.as_os_str()),
        ("XDG_CACHE_HOME", home.path().as_os_str()),
    ];
    let words = ["review", root.to_str().unwrap(), "approve", "apis/refunds-v2", "--dry-run"];
    let args: Vec<&OsStr> = words.iter().map(OsStr::new).collect();
    let mut t = pty::Pty::spawn(Path::new(env!("CARGO_BIN_EXE_folio")), &args, &env, (200, 50), 1 << 20);
    let (screen, asked) = t.wait_for("who is reviewing?", Duration::from_secs(20));
    assert!(asked, "{screen}");
    t.send(b"ann lee\r");
    let (screen, again) = t.wait_for("one word without spaces", Duration::from_secs(10));
    assert!(again, "a spaced name is refused: {screen}");
    t.send(b"ann\r");
    let status = t.wait_exit(Duration::from_secs(20)).expect("folio ends");
    assert!(status.success());
    let screen = t.screen();
    assert!(screen.contains("(human:ann)"), "the answer is the actor: {screen}");
    assert_eq!(std::fs::read_to_string(config.join("reviewer")).unwrap(), "human:ann\n");
    assert!(!root.join(".folio/reviewer").exists());

    // The next run, without a terminal, uses the remembered reviewer.
    let o = dry_approve(&root, &config, home.path());
    assert!(String::from_utf8_lossy(&o.stdout).contains("(human:ann)"), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}
