//! Golden tests of `folio review` verbs per dialect: the exact changes (the `--dry-run` diff)
//! and the log line each verdict appends, compared with `tests/golden/review/<name>.txt`.
//! Timestamps are replaced by `<TS>`/`<DATE>`. Set `FOLIO_BLESS=1` to rewrite them.
mod common;
use common::*;

use std::path::{Path, PathBuf};

fn normalise(s: &str) -> String {
    let ts = regex_lite(s);
    ts.replace(env!("CARGO_MANIFEST_DIR"), "<REPO>")
}

/// Replace ISO timestamps and dates (today's) with placeholders.
fn regex_lite(s: &str) -> String {
    let today = {
        let o = std::process::Command::new("date").args(["-u", "+%Y-%m-%d"]).output().unwrap();
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(&today) {
        out += &rest[..at];
        let after = &rest[at + today.len()..];
        // `THH:MM:SS[.ffffff]Z` or ` HH:MM +00:00` follow a full timestamp.
        let tail = after
            .strip_prefix('T')
            .map(|t| t.find('Z').map(|z| z + 2).unwrap_or(0))
            .or_else(|| after.strip_prefix(' ').filter(|t| t.get(5..12) == Some(" +00:00")).map(|_| 13))
            .unwrap_or(0);
        out += if tail > 0 { "<TS>" } else { "<DATE>" };
        rest = &after[tail..];
    }
    out + rest
}

fn last_log_line(root: &Path, log: &str) -> String {
    let text = std::fs::read_to_string(root.join(log)).unwrap();
    if log.ends_with("log.md") && !log.ends_with("_log.md") {
        // OKF: newest first, the entry right under today's heading.
        return text.lines().find(|l| l.starts_with("* **") || l.starts_with("- **")).unwrap().to_string();
    }
    if log.ends_with("_log.md") {
        let at = text.rfind("\n## [").unwrap();
        return text[at + 1..].to_string();
    }
    text.lines().last().unwrap().to_string()
}

/// Run a verb on a scratch copy: dry-run diff, then apply; compare both with the golden file.
fn check(name: &str, src: PathBuf, store_rel: &str, args: &[&str], log: &str) {
    let (_dir, root) = scratch(&src);
    let store = root.join(store_rel);
    let s = store.to_str().unwrap();
    let mut full = vec!["review", s];
    full.extend(args);
    full.extend(["--as", "human:golden"]);
    let mut dry = full.clone();
    dry.push("--dry-run");
    let o = folio(&dry);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let diff = stdout(&o);
    let o = folio(&full);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    let got = normalise(&format!("{diff}\n# log\n{}\n", last_log_line(&store, log)));
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/review").join(format!("{name}.txt"));
    if std::env::var_os("FOLIO_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .unwrap_or_else(|_| panic!("{}: missing; run with FOLIO_BLESS=1", golden.display()));
    assert_eq!(got, want, "{name} differs from {}", golden.display());
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
    check("awareness-promote", a.clone(), "", &["promote", &ids[0], "--to", "review"], "memory/events.jsonl");
    check("awareness-veto", a, "", &["veto", &ids[1], "--reason", "one-off"], "memory/events.jsonl");
}
