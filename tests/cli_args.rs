//! Global options work before or after the subcommand; a bare PATH opens that store.
mod common;
use common::*;

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
    let generated = Command::new(env!("CARGO_BIN_EXE_folio-gen"))
        .args(["--dialect", "okf", "--entities", "1500", "--out", store.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(generated.status.success());
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
