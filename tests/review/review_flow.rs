//! Review round trips on scratch copies of the fixture stores: approve → an agent edits →
//! back in the queue with a diff; veto → undo → byte-exact; merge repointing links; bulk;
//! conflicts.
use crate::support;
use support::*;

use std::collections::BTreeMap;
use std::path::Path;

use folio::store::Store;
use folio::store::review::{ReviewError, Reviewer, Verdict, queue, verdict};
use folio::store::write::changeset::{WriteError, WriteOptions};

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == ".folio"
                || name == "folio"
                || name == "log.md"
                || name == "_log.md"
                || name.ends_with("audit.log")
            {
                continue;
            }
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path().strip_prefix(dir).unwrap().display().to_string(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn review(args: &[&str]) -> String {
    let o = folio(args);
    assert!(o.status.success(), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

fn queued(root: &Path, filter: &str) -> Vec<String> {
    let v = folio_json(&["review", root.to_str().unwrap(), "list", "--json", "--filter", filter]);
    v["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn approve_then_agent_edit_requeues_with_a_word_diff() {
    let (_d, root) = scratch(&fixture("opendray-homelab"));
    let r = root.to_str().unwrap();
    review(&["review", r, "approve", "fact-pg-version", "--as", "human:ann"]);
    assert!(!queued(&root, "").contains(&"fact-pg-version".to_string()));
    let p = root.join("facts/fact-pg-version.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replacen("\n---\n", "\n---\nNow on a newer minor release.\n", 1)).unwrap();
    let v = folio_json(&["review", r, "list", "--json", "--filter", "reason:changed-since-approval"]);
    assert_eq!(v["count"], 1);
    assert_eq!(v["items"][0]["id"], "fact-pg-version");
    let shown = folio_json(&["review", r, "show", "fact-pg-version", "--json"]);
    assert!(shown["diff"].as_str().unwrap().contains("{+Now on a newer minor release.\n+}"), "{shown}");
}

#[test]
fn veto_then_undo_restores_every_byte() {
    for (src, sub, id) in [
        (fixture("evolve-project"), ".evolve/entities", "guideline/prefer-ripgrep-over-grep-for-code-search"),
        (demo_root(), "", "decisions/adr-0012-multi-currency-settlement"),
        (fixture("elophanto-knowledge"), "", "learned/lessons/confirm-timezone-before-scheduling"),
        (fixture("aip10-wiki"), "", "cost-cut-plan"),
    ] {
        let (_d, root) = scratch(&src);
        let store = root.join(sub);
        let s = store.to_str().unwrap();
        let before = snapshot(&root);
        review(&["review", s, "veto", id, "--reason", "wrong", "--as", "human:ann"]);
        assert_ne!(snapshot(&root), before, "{id}: veto changed nothing");
        assert!(!queued(&store, "").contains(&id.to_string()), "{id} still queued after veto");
        if !sub.is_empty() {
            // evolve stops recalling it: the file left `entities/` for `.evolve/vetoed/`.
            assert!(root.join(".evolve/vetoed").join(format!("{id}.md")).exists());
            assert!(!store.join(format!("{id}.md")).exists());
        }
        review(&["review", s, "undo", "--as", "human:ann"]);
        assert_eq!(snapshot(&root), before, "{id}: undo is not byte-exact");
        assert!(queued(&store, "").contains(&id.to_string()), "{id} not back in the queue after undo");
    }
}

fn demo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

#[test]
fn merge_repoints_links_in_every_file_and_archives_the_duplicate() {
    let (_d, root) = scratch(&demo_root());
    let r = root.to_str().unwrap();
    let from = "conventions/amounts-minor-units";
    let into = "conventions/money-in-minor-units";
    let dry = review(&["review", r, "merge", from, into, "--dry-run", "--as", "human:ann"]);
    assert!(dry.contains("repoint apis/refunds-v2.md:32:"), "{dry}");
    review(&["review", r, "merge", from, into, "--as", "human:ann"]);
    assert!(!root.join(format!("{from}.md")).exists());
    let merged = std::fs::read_to_string(root.join(format!("{into}.md"))).unwrap();
    assert!(merged.contains("merged_from: [conventions/amounts-minor-units]"), "{merged}");
    // The kept entity keeps its own body: superseded text does not become live text.
    assert!(!merged.contains("## Merged from"), "{merged}");
    let refunds = std::fs::read_to_string(root.join("apis/refunds-v2.md")).unwrap();
    assert!(refunds.contains("(/conventions/money-in-minor-units.md)"), "{refunds}");
    let index = std::fs::read_to_string(root.join("conventions/index.md")).unwrap();
    assert!(!index.contains("amounts-minor-units.md"), "{index}");
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert!(log.contains("* **Merge**: [Money amounts in minor units](/conventions/amounts-minor-units.md)"), "{log}");
    // Issue 41: the trail names a page gone by design: provenance, never a broken link.
    let lint = folio_json(&["lint", r, "--format", "json", "--no-cache"]);
    let named: Vec<&serde_json::Value> =
        lint["findings"].as_array().unwrap().iter().filter(|f| f.to_string().contains("amounts-minor-units")).collect();
    assert!(named.is_empty(), "lint flags the merged page: {named:?}");
    let graph = folio_json(&["graph", r, "--format", "json", "--around", into]);
    let trail = serde_json::json!([{"from": into, "target": from}]);
    assert_eq!(graph["merged_from"], trail, "{graph}");
    assert!(!graph["broken"].to_string().contains(from), "{graph}");
    let dot = stdout(&folio(&["graph", r, "--around", into]));
    assert!(
        dot.contains("merged:conventions/amounts-minor-units") && !dot.contains("broken:conventions/amounts"),
        "{dot}"
    );
}

/// `--append-body` appends FROM's body under a heading, its links re-aimed; nothing in INTO
/// links to INTO itself (issue 26: OKF, AIP-10 and evolve merges wrote self-links).
#[test]
fn merge_never_writes_a_self_link_and_appends_only_when_asked() {
    let cases = [
        (
            corpus("okf-v0.2/acme_retail"),
            "",
            "metrics/gross-margin-legacy",
            "metrics/gross-margin",
            "(./gross-margin.md)",
        ),
        (fixture("aip10-wiki"), "", "bridge-note-terms", "runway-extension-q2", "[[runway-extension-q2]]"),
        (
            fixture("evolve-wikilinks"),
            ".evolve/entities",
            "feedback/check-lockfile",
            "guideline/prefer-uv-run",
            "[[prefer-uv-run",
        ),
    ];
    for (src, sub, from, into, self_link) in cases {
        for append in [false, true] {
            let (_d, root) = scratch(&src);
            make_writable(&root);
            let store = root.join(sub);
            let s = store.to_str().unwrap();
            let into_file = folio_json(&["show", s, into, "--json"])["path"].as_str().unwrap().to_string();
            let before = std::fs::read_to_string(store.join(&into_file)).unwrap();
            let mut args = vec!["review", s, "merge", from, into, "--as", "human:ann"];
            if append {
                args.push("--append-body");
            }
            review(&args);
            let merged = std::fs::read_to_string(store.join(&into_file)).unwrap();
            assert!(!merged.contains(self_link), "{into}: a self-link\n{merged}");
            assert_eq!(merged.contains("## Merged from"), append, "{into}: append {append}\n{merged}");
            // Issue 41: FROM's text sits inside the section, its title no heading of INTO's.
            let headings: Vec<&str> = merged.lines().filter(|l| l.starts_with('#')).collect();
            let after = headings.iter().skip_while(|h| !h.starts_with("## Merged from")).skip(1);
            assert!(after.clone().all(|h| h.starts_with("###")), "{into}: a heading above the section's\n{merged}");
            let h1 = |text: &str| text.lines().filter(|l| l.starts_with("# ")).count();
            assert_eq!(h1(&merged), h1(&before), "{into}: FROM's title became a heading\n{merged}");
        }
    }
}

/// `--body-from`: the reviewer's body may still link to FROM; those links are unwrapped, not
/// left pointing at the archived file (issue 26 defect 7).
#[test]
fn merge_with_a_given_body_leaves_no_link_to_the_merged_entity() {
    let (_d, root) = scratch(&fixture("aip10-wiki"));
    make_writable(&root);
    let body = root.join("../body.md");
    std::fs::write(&body, "# Runway\n\nTerms in [[bridge-note-terms]] and [[lead-investor]].\n").unwrap();
    let r = root.to_str().unwrap();
    review(&[
        "review",
        r,
        "merge",
        "bridge-note-terms",
        "runway-extension-q2",
        "--body-from",
        body.to_str().unwrap(),
        "--as",
        "human:ann",
    ]);
    let merged = std::fs::read_to_string(root.join("concepts/runway-extension-q2.md")).unwrap();
    assert!(merged.contains("Terms in bridge-note-terms and [[lead-investor]]."), "{merged}");
    let lint = folio(&["lint", r, "--json"]);
    let text = String::from_utf8_lossy(&lint.stdout);
    assert!(!text.contains("runway-extension-q2.md\",\"line\":3"), "{text}");
}

#[test]
fn bulk_approves_every_draft_in_one_changeset() {
    let (_d, root) = scratch(&demo_root());
    let r = root.to_str().unwrap();
    assert_eq!(queued(&root, "status:draft").len(), 3);
    let out = review(&["review", r, "approve", "--filter", "status:draft", "--as", "human:ann"]);
    assert!(out.contains("3 queued items match"), "{out}");
    assert_eq!(queued(&root, "status:draft").len(), 0);
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert_eq!(log.matches("* **Approve**").count(), 1, "one changeset, one log line");
    assert!(log.contains("approved 3 entities"), "{log}");
}

#[test]
fn an_agent_write_between_plan_and_apply_is_a_conflict() {
    let (_d, root) = scratch(&fixture("opendray-homelab"));
    let store = Store::open(&root, None).unwrap();
    let idx = store.find("fact-grafana-port").unwrap();
    let plan = verdict::plan(&store, &[idx], &Verdict::Veto { reason: "x".into() }, &Reviewer::now("human:ann"), false)
        .unwrap();
    let p = root.join("facts/fact-grafana-port.md");
    std::fs::write(&p, "---\nid: fact-grafana-port\nkind: fact\n---\nagent rewrote it\n").unwrap();
    let err = plan.apply(&store, &WriteOptions::default()).unwrap_err();
    assert!(matches!(err, ReviewError::Write(WriteError::Conflict { .. })), "{err}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "---\nid: fact-grafana-port\nkind: fact\n---\nagent rewrote it\n");
    assert!(queue::build(&Store::open(&root, None).unwrap()).iter().any(|i| i.id == "fact-grafana-port"));
}

#[test]
fn hidden_content_needs_a_second_confirmation() {
    let (_d, root) = scratch(&fixture("lint-okf"));
    let r = root.to_str().unwrap();
    let o = folio(&["review", r, "approve", "hostile", "--as", "human:ann"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("hostile.md"));
    review(&["review", r, "approve", "hostile", "--confirm-hidden", "--as", "human:ann"]);
}

#[test]
fn merge_leaves_no_self_edges_or_repeats() {
    let (_d, root) = scratch(&fixture("opendray-homelab"));
    let r = root.to_str().unwrap();
    // B (the container) `runs_on` A (the node): after the merge that edge would point at B itself.
    review(&["review", r, "merge", "host-kv01", "host-192.168.3.88", "--as", "human:ann"]);
    let b = std::fs::read_to_string(root.join("entities/host/host-192.168.3.88.md")).unwrap();
    assert!(!b.contains("relations"), "{b}");
    assert!(b.contains("merged_from: [host-kv01]"), "{b}");
    let caddy = std::fs::read_to_string(root.join("entities/service/svc-caddy.md")).unwrap();
    assert!(caddy.contains("runs_on: [host-192.168.3.88]"), "{caddy}");
    // A list naming both A and B names B once afterwards.
    let (_d, root) = scratch(&fixture("opendray-homelab"));
    let r = root.to_str().unwrap();
    review(&["review", r, "merge", "host-kv02", "host-kv01", "--as", "human:ann"]);
    let fact = std::fs::read_to_string(root.join("facts/fact-lxc-id-range.md")).unwrap();
    assert!(fact.contains("about: [host-kv01]\n"), "{fact}");
}
