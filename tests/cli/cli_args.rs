//! Global options work before or after the subcommand; a bare PATH opens that store.
use crate::support;
use support::*;

#[test]
fn global_options_go_before_or_after_the_subcommand() {
    let a = folio_json(&["--demo", "stats", "--json"]);
    let b = folio_json(&["stats", "--demo", "--json"]);
    assert_eq!(a["entities"], b["entities"]);
    assert_eq!(a["dialect"], "okf");
    let ga4 = corpus("okf-v0.1/ga4");
    let c = folio_json(&["--dialect", "vault", "stats", ga4.to_str().unwrap(), "--json"]);
    assert_eq!(c["dialect"], "vault");
    assert_eq!(c["detected_by"], "--dialect vault");
}

#[test]
fn a_bare_path_opens_that_store() {
    let ga4 = corpus("okf-v0.1/ga4");
    let out = folio(&[ga4.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("11 entities"));
}

#[test]
fn a_closed_pipe_ends_folio_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // Output far larger than a pipe's buffer, so folio is still writing when the pipe closes.
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("okf");
    folio_gen::generate(folio::store::dialect::okf::KIND, 1500, 1, &store).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["graph", store.to_str().unwrap(), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close our end as `head -c1` would.
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.code() != Some(101), "{status:?}");
}

/// Issue 23: `folio <command> [PATH] <args>` for every command, `review` included, and the
/// old `folio review PATH <verb>` order still works; both give the same answer.
#[test]
fn every_command_takes_the_store_after_its_name() {
    let (_d, root) = scratch(&fixture("aip10-wiki"));
    let r = root.to_str().unwrap();
    for args in [
        vec!["stats", r, "--json"],
        vec!["show", r, "hiring-freeze", "--json"],
        vec!["graph", r, "--format", "json"],
        vec!["recall", r, "hiring", "--json"],
        vec!["lint", r, "--format", "json"],
        vec!["log", r, "--json"],
        vec!["history", r, "hiring-freeze", "--json"],
        vec!["review", r, "list", "--json"],
    ] {
        let o = folio(&args);
        assert_ne!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    }
    let index = folio(&["index", r, "--check"]);
    assert_ne!(index.status.code(), Some(2), "{}", String::from_utf8_lossy(&index.stderr));
    // The review verb before the store, as every other command takes it.
    assert_eq!(folio_json(&["review", "list", r, "--json"]), folio_json(&["review", r, "list", "--json"]));
    assert_eq!(
        folio_json(&["review", "show", r, "hiring-freeze", "--json"]),
        folio_json(&["review", r, "show", "hiring-freeze", "--json"])
    );
    let before = tree(&root, &[]);
    let dry = folio(&["review", "approve", r, "hiring-freeze", "--dry-run", "--as", "human:t"]);
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(stdout(&dry).contains("hiring-freeze"), "{}", stdout(&dry));
    assert_eq!(tree(&root, &[]), before, "a dry run writes nothing");
}

/// Issue 23: JSON fields the schema calls strings are never null: a problem's severity is the
/// rule's own when nothing overrides it.
#[test]
fn show_json_problems_name_their_severity() {
    let v = folio_json(&["show", fixture("lint-okf").to_str().unwrap(), "broken-fm", "--json"]);
    let problems = v["problems"].as_array().unwrap();
    assert!(!problems.is_empty());
    for p in problems {
        assert!(matches!(p["severity"].as_str(), Some("error" | "warn" | "info")), "{p}");
    }
}

/// Reading asks nobody who they are: `lint` without `--as`, `$USER` unset and no reviewer
/// remembered says nothing about a reviewer (only writes record one).
#[test]
fn a_plain_lint_never_asks_who_reviews() {
    let own = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["lint", fixture("aip10-wiki").to_str().unwrap()])
        .env_remove("USER")
        .env_remove("USERNAME")
        .env("XDG_CONFIG_HOME", own.path().join("config"))
        .env("XDG_CACHE_HOME", own.path().join("cache"))
        .env("HOME", own.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("reviewer") && !err.contains("who is reviewing"), "{err}");
}
