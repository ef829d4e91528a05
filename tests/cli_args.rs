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
