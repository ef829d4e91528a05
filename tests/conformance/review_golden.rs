//! Golden tests of `folio review` verbs per dialect, on scratch copies of the fixture stores and
//! the real corpora. Each golden file `tests/golden/review/<name>.txt` holds the `--dry-run`
//! output, the change actually applied to every file on disk (catalogs included; a file that
//! left is named with its size and digest) and the entry the verdict appended to the store's own
//! log. After applying, `folio undo` must put every file back byte for byte.
//! Timestamps are replaced by `<TS>`/`<DATE>`. Set `FOLIO_BLESS=1` to rewrite them.
use crate::support;
use support::golden::*;
use support::*;

use std::path::{Path, PathBuf};

/// Run a verb on a scratch copy: dry-run, apply, compare with the golden file, then undo.
fn check(name: &str, src: PathBuf, store_rel: &str, args: &[&str], log: &str) {
    let (_dir, root) = writable_scratch(&src);
    let store = root.join(store_rel);
    let log_path = normalize_path(&store.join(log));
    let s = store.to_str().unwrap();
    let mut full = vec!["review", s];
    full.extend(args);
    full.extend(["--as", "human:golden"]);
    let mut dry = full.clone();
    dry.push("--dry-run");
    let before = store_files(&root, &log_path);
    let log_before = std::fs::read_to_string(&log_path).unwrap_or_default();
    let o = folio(&dry);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let diff = stdout(&o);
    assert_eq!(store_files(&root, &log_path), before, "{name}: --dry-run wrote");
    let o = folio(&full);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let after = store_files(&root, &log_path);
    let log_after = std::fs::read_to_string(&log_path).unwrap();
    let added = logged(&log_before, &log_after, log);
    let got = normalise(&format!("{diff}\n# applied\n{}\n# log\n{added}\n", applied(&before, &after)));
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/review").join(format!("{name}.txt"));
    if std::env::var_os("FOLIO_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .unwrap_or_else(|_| panic!("{}: missing; run with FOLIO_BLESS=1", golden.display()));
    assert_eq!(got, want, "{name} differs from {}", golden.display());
    // Undo takes the decision back, a log-only one too: files byte-exact, items queued again.
    let o = folio(&["undo", s, "--as", "human:golden"]);
    assert!(o.status.success(), "{name}: undo: {}", String::from_utf8_lossy(&o.stderr));
    assert!(store_files(&root, &log_path) == before, "{name}: undo is not byte-exact");
    let ledger =
        std::fs::read_to_string(normalize_path(&store.join(state_dir(store_rel)).join("review/verdicts.jsonl")));
    assert_eq!(ledger.unwrap_or_default(), "", "{name}: undo left verdicts in the ledger");
}

/// The folio state folder, relative to the store root.
fn state_dir(store_rel: &str) -> &'static str {
    if store_rel.is_empty() { ".folio" } else { "../folio" }
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

#[test]
fn okf_approve_veto_promote() {
    check("okf-approve", demo(), "", &["approve", "apis/refunds-v2"], "log.md");
    check(
        "okf-veto",
        demo(),
        "",
        &["veto", "decisions/adr-0012-multi-currency-settlement", "--reason", "not decided yet"],
        "log.md",
    );
    check("okf-promote", demo(), "", &["promote", "runbooks/rotate-webhook-signing-secret"], "log.md");
}

#[test]
fn evolve_approve_veto() {
    let g = "guideline/prefer-ripgrep-over-grep-for-code-search";
    check("evolve-approve", fixture("evolve-project"), ".evolve/entities", &["approve", g], "../audit.log");
    check(
        "evolve-veto",
        fixture("evolve-project"),
        ".evolve/entities",
        &["veto", g, "--reason", "use the IDE search"],
        "../audit.log",
    );
}

#[test]
fn aip10_approve_over_and_veto() {
    check(
        "aip10-approve-over",
        fixture("aip10-wiki"),
        "",
        &["approve", "hiring-freeze", "--over", "runway-extension-q2"],
        "_log.md",
    );
    check(
        "aip10-veto",
        fixture("aip10-wiki"),
        "",
        &["veto", "cost-cut-plan", "--reason", "numbers are stale"],
        "_log.md",
    );
}

#[test]
fn opendray_approve_veto_promote() {
    let o = fixture("opendray-homelab");
    check("opendray-approve", o.clone(), "", &["approve", "fact-pg-version"], ".folio/audit.jsonl");
    check(
        "opendray-veto",
        o.clone(),
        "",
        &["veto", "fact-grafana-port", "--reason", "port moved"],
        ".folio/audit.jsonl",
    );
    check("opendray-promote", o, "", &["promote", "fact-dns-rewrites"], ".folio/audit.jsonl");
}

#[test]
fn elophanto_veto() {
    let e = fixture("elophanto-knowledge");
    check(
        "elophanto-veto",
        e,
        "",
        &["veto", "learned/lessons/confirm-timezone-before-scheduling", "--reason", "wrong"],
        ".folio/audit.jsonl",
    );
}

#[test]
fn awareness_promote_and_veto() {
    let a = fixture("awareness-home");
    let items =
        folio_json(&["review", a.to_str().unwrap(), "list", "--json", "--filter", "reason:promotion-candidate"]);
    let ids: Vec<String> =
        items["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
    assert!(ids.len() >= 5, "{ids:?}");
    // Named by entry key: the inbox orders by need, not by where the lines sit.
    let (first, twin) = ("y1z4fp", "y1z4fp-2");
    assert!(ids.iter().any(|i| i == first) && ids.iter().any(|i| i == twin), "{ids:?}");
    check("awareness-promote", a.clone(), "", &["promote", first, "--to", "review"], "memory/events.jsonl");
    check("awareness-veto", a, "", &["veto", twin, "--reason", "one-off"], "memory/events.jsonl");
}

#[test]
fn okf_forget_merge_and_promote_to_a_type() {
    let acme = corpus("okf-v0.2/acme_retail");
    check("okf-forget", acme.clone(), "", &["forget", "metrics/gross-margin-legacy"], "log.md");
    check("okf-merge", acme.clone(), "", &["merge", "metrics/gross-margin-legacy", "metrics/gross-margin"], "log.md");
    // Issue 26 defect 8: the old folder's catalog drops its entry, `sources[].resource` follows
    // the file, and undo is byte-exact (checked by `check`).
    check("okf-promote-move-resources", acme.clone(), "", &["promote", "tables/orders", "--to", "Metric"], "log.md");
    // The demo groups by type: a runbook promoted to a decision record moves to decisions/.
    check(
        "okf-promote-type",
        demo(),
        "",
        &["promote", "runbooks/rotate-webhook-signing-secret", "--to", "Decision Record"],
        "log.md",
    );
}

#[test]
fn evolve_bulk_approve_logs_one_line_per_entity() {
    let e = fixture("evolve-project");
    check(
        "evolve-bulk-approve",
        e,
        ".evolve/entities",
        &["approve", "--filter", "path:guideline/prefer"],
        "../audit.log",
    );
}

#[test]
fn evolve_forget_and_merge() {
    let g = "guideline/quote-paths-with-spaces-in-shell-commands";
    check("evolve-forget", fixture("evolve-project"), ".evolve/entities", &["forget", g], "../audit.log");
    check(
        "evolve-merge",
        fixture("evolve-wikilinks"),
        ".evolve/entities",
        &["merge", "feedback/check-lockfile", "guideline/prefer-uv-run"],
        "../audit.log",
    );
}

#[test]
fn aip10_keep_both_forget_and_merge() {
    let w = fixture("aip10-wiki");
    check("aip10-approve-keep-both", w.clone(), "", &["approve", "hiring-freeze"], "_log.md");
    check("aip10-forget", w.clone(), "", &["forget", "q4-2014-targets"], "_log.md");
    check("aip10-merge", w, "", &["merge", "bridge-note-terms", "lead-investor"], "_log.md");
}

#[test]
fn opendray_forget_and_merge() {
    let o = fixture("opendray-homelab");
    check("opendray-forget", o.clone(), "", &["forget", "host-192.168.3.88"], ".folio/audit.jsonl");
    check(
        "opendray-merge",
        o,
        "",
        &["merge", "fact-backup-nightly-0100", "fact-backup-nightly-0230"],
        ".folio/audit.jsonl",
    );
}

#[test]
fn awareness_forget_and_merge() {
    let a = fixture("awareness-home");
    let items =
        folio_json(&["review", a.to_str().unwrap(), "list", "--json", "--filter", "reason:promotion-candidate"]);
    let ids: Vec<String> =
        items["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
    // Named by entry key: the inbox orders by need, not by where the lines sit.
    let (first, twin, other) = ("y1z4fp", "y1z4fp-2", "1xbgsit");
    assert!([first, twin, other].iter().all(|k| ids.iter().any(|i| i == k)), "{ids:?}");
    check("awareness-forget", a.clone(), "", &["forget", other], "memory/events.jsonl");
    // Two candidates with the same text: one folds into the other and is pruned.
    check("awareness-merge", a, "", &["merge", twin, first], "memory/events.jsonl");
}

#[test]
fn elophanto_approve_forget_and_merge() {
    let e = fixture("elophanto-knowledge");
    let log = ".folio/audit.jsonl";
    check("elophanto-approve", e.clone(), "", &["approve", "system/known-limitations"], log);
    check("elophanto-forget", e.clone(), "", &["forget", "learned/patterns/batch-browser-screenshots"], log);
    check(
        "elophanto-merge",
        e,
        "",
        &["merge", "learned/failures/twitter-login-captcha-loop", "learned/failures/remotion-render-out-of-memory"],
        log,
    );
}

/// Plain vaults from the real corpora (awareness's docs and templates folders: no format markers).
#[test]
fn vault_every_verb() {
    let docs = corpus("awareness/docs");
    let log = ".folio/audit.jsonl";
    assert_eq!(folio_json(&["stats", docs.to_str().unwrap(), "--json"])["dialect"], "vault");
    check("vault-approve", docs.clone(), "", &["approve", "memory"], log);
    let templates = corpus("awareness/templates");
    check("vault-veto", templates.clone(), "", &["veto", "cli-wrapper", "--reason", "the wrapper is generated"], log);
    check("vault-forget", templates, "", &["forget", "daily-worklog"], log);
    check("vault-merge", docs.clone(), "", &["merge", "memory", "private-state"], log);
    // Vaults have no maturity ladder: promote is refused with the file named, nothing written.
    let (_d, root) = writable_scratch(&docs);
    let o = folio(&["review", root.to_str().unwrap(), "promote", "memory", "--as", "human:golden"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("memory.md: vault has no maturity levels to promote along"), "{err}");
    assert!(!root.join(".folio/audit.jsonl").exists());
}
