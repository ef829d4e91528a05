//! Safe fixes are byte-exact: applying them changes exactly the planted defect and nothing
//! else, and `--fix --dry-run` prints their diff without writing.
use crate::support;
use support::*;

use folio::store::Store;
use folio::store::lint::fix::{Change, Expected, OnDisk, content_hash};
use folio::store::lint::{self, LintConfig};

fn fixes_by_path(store: &Store) -> std::collections::BTreeMap<String, lint::Fix> {
    let report = lint::lint(store, &LintConfig::default());
    report.fixes().into_iter().map(|f| (f.path.clone(), f)).collect()
}

#[test]
fn fixes_change_only_the_defect() {
    let store = Store::open(&fixture("lint-okf"), None).unwrap();
    let fixes = fixes_by_path(&store);
    assert_eq!(fixes.keys().collect::<Vec<_>>(), ["dup/index.md", "index.md", "legacy.md", "wiki.md"]);
    let apply = |path: &str| {
        let old = OnDisk::read(&store.abs_path(path)).unwrap();
        let fix = &fixes[path];
        match (&fix.expected, &old) {
            (Expected::Absent, None) => {}
            (Expected::Hash(h), Some(d)) => assert_eq!(*h, content_hash(&d.bytes), "{path}"),
            (Expected::Loaded(s), Some(d)) => assert_eq!(Some(*s), d.stamp, "{path}"),
            (expected, _) => panic!("{path}: expects {expected:?}"),
        }
        (old.clone().map(|d| d.bytes).unwrap_or_default(), fix.apply(old.as_ref()).unwrap())
    };
    let (old, new) = apply("legacy.md");
    assert_eq!(old, b"---\ntype: Guideline\ntitle: Legacy\ntrigger: \"When: the build breaks\"\n---\nbody\n");
    assert_eq!(new, b"---\ntype: Guideline\ntitle: Legacy\ndescription: \"When: the build breaks\"\n---\nbody\n");
    let (old, new) = apply("wiki.md");
    let old_text = String::from_utf8(old).unwrap();
    let expected = old_text.replacen("[[good]]", "[good](/good.md)", 1);
    assert_eq!(String::from_utf8(new).unwrap(), expected, "[[nowhere]] does not resolve and is kept");
    // A catalog fix regenerates the whole file as `folio index` would.
    let (old, new) = apply("index.md");
    assert!(old.ends_with(b"* [stray](stray.md)\n"));
    assert_eq!(new, &old[..old.len() - b"* [stray](stray.md)\n".len()]);
    let (old, new) = apply("dup/index.md");
    assert!(old.is_empty());
    assert_eq!(String::from_utf8(new).unwrap(), "# Note\n\n* [Lower](case.md) - d\n* [Upper](Case.md) - d\n");
    let Change::Edits(edits) = &fixes["wiki.md"].change else { panic!("wikilink fixes are byte edits") };
    assert_eq!(edits.len(), 1);
}

#[test]
fn applied_fixes_leave_only_the_unfixable_findings() {
    let (_tmp, root) = scratch(&fixture("lint-okf"));
    // Renaming `trigger` gives legacy.md a description, which its catalog entry then shows:
    // a second round regenerates that catalog, and then nothing is left to fix.
    let mut rounds = Vec::new();
    for _ in 0..2 {
        let store = Store::open(&root, None).unwrap();
        let fixes = fixes_by_path(&store);
        rounds.push(fixes.keys().cloned().collect::<Vec<_>>());
        for fix in fixes.values() {
            let path = store.abs_path(&fix.path);
            let new = fix.apply(OnDisk::read(&path).unwrap().as_ref()).unwrap();
            std::fs::write(&path, new).unwrap();
        }
    }
    assert_eq!(rounds, [vec!["dup/index.md", "index.md", "legacy.md", "wiki.md"], vec!["index.md"]]);
    let after = Store::open(&root, None).unwrap();
    let report = lint::lint(&after, &LintConfig::default());
    let rules: Vec<(&str, &str)> = report
        .findings
        .iter()
        .filter(|f| matches!(f.rule, "legacy-trigger" | "wikilink-syntax" | "catalog-stale"))
        .map(|f| (f.rule, f.path.as_deref().unwrap()))
        .collect();
    // The wikilink that does not resolve has no safe fix and stays.
    assert_eq!(rules, [("wikilink-syntax", "wiki.md")]);
    assert!(report.findings.iter().all(|f| f.fix.is_none()));
}

#[test]
fn a_fix_refuses_a_file_that_changed_since_the_lint() {
    let (_tmp, root) = scratch(&fixture("lint-okf"));
    let store = Store::open(&root, None).unwrap();
    let fixes = fixes_by_path(&store);
    write(&root, "legacy.md", "---\ntype: Guideline\ntrigger: edited meanwhile\n---\n");
    let now = OnDisk::read(&root.join("legacy.md")).unwrap();
    assert!(fixes["legacy.md"].apply(now.as_ref()).is_err());
}

/// Set every file under `root` back an hour: files the store then loads are older than its
/// reads by more than an mtime tick, so their fixes are bound to the loaded size and mtime.
fn backdate(root: &std::path::Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                std::fs::File::options().write(true).open(e.path()).unwrap().set_modified(hour_ago).unwrap();
            }
        }
    }
}

#[test]
fn a_fix_bound_to_the_loaded_file_is_made_without_reading_it_and_refuses_it_once_changed() {
    let (_tmp, root) = scratch(&fixture("lint-okf"));
    backdate(&root);
    let original = std::fs::read(root.join("legacy.md")).unwrap();
    let store = Store::open(&root, None).unwrap();
    // Lint does not read the file again: gone after the load, it still gets its fix.
    std::fs::rename(root.join("legacy.md"), root.join("aside")).unwrap();
    let report = lint::lint(&store, &LintConfig::default());
    let trigger = |r: &lint::Report| r.findings.iter().find(|f| f.rule == "legacy-trigger").cloned().unwrap();
    let fix = trigger(&report).fix.expect("a legacy-trigger fix");
    assert!(matches!(fix.expected, Expected::Loaded(_)), "{:?}", fix.expected);
    std::fs::rename(root.join("aside"), root.join("legacy.md")).unwrap();

    // Unchanged: `lint --fix` (and the TUI's fix, the same call) renames the key.
    let only = |r: &lint::Report| lint::Report { findings: vec![trigger(r)], ..Default::default() };
    let opts = folio::store::write::changeset::WriteOptions::default();
    lint::apply::apply_fixes(&store, &only(&report), "human:t", &opts).unwrap();
    let fixed = String::from_utf8(original.clone()).unwrap().replacen("trigger:", "description:", 1);
    assert_eq!(std::fs::read_to_string(root.join("legacy.md")).unwrap(), fixed);

    // Changed since the lint — even written back with the same length — it is refused.
    std::fs::write(root.join("legacy.md"), &original).unwrap();
    backdate(&root);
    let store = Store::open(&root, None).unwrap();
    let report = lint::lint(&store, &LintConfig::default());
    let edited = String::from_utf8(original.clone()).unwrap().replacen("When", "Once", 1);
    assert_eq!(edited.len(), original.len());
    write(&root, "legacy.md", &edited);
    let err = lint::apply::apply_fixes(&store, &only(&report), "human:t", &opts).unwrap_err();
    assert!(err.to_string().contains("changed since it was linted"), "{err}");
    assert_eq!(std::fs::read_to_string(root.join("legacy.md")).unwrap(), edited);
    let now = OnDisk::read(&root.join("legacy.md")).unwrap();
    assert!(trigger(&report).fix.unwrap().apply(now.as_ref()).is_err());
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let (_tmp, root) = scratch(&fixture("lint-okf"));
    let before: Vec<Vec<u8>> =
        ["legacy.md", "wiki.md", "index.md"].iter().map(|p| std::fs::read(root.join(p)).unwrap()).collect();
    let o = folio(&["lint", root.to_str().unwrap(), "--fix", "--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "error findings remain");
    let out = stdout(&o);
    assert!(out.contains(
        "--- a/legacy.md\n+++ b/legacy.md\n@@ -1,6 +1,6 @@\n ---\n type: Guideline\n title: Legacy\n-trigger: \"When: the build breaks\"\n+description: \"When: the build breaks\"\n ---\n body\n"
    ), "{out}");
    assert!(out.contains("-See [[good]] and [[nowhere]].\n+See [good](/good.md) and [[nowhere]].\n"));
    assert!(out.contains("--- /dev/null\n+++ b/dup/index.md\n"));
    assert!(out.ends_with("4 fixes in 4 files; nothing written (--dry-run)\n"));
    let after: Vec<Vec<u8>> =
        ["legacy.md", "wiki.md", "index.md"].iter().map(|p| std::fs::read(root.join(p)).unwrap()).collect();
    assert_eq!(before, after);
    assert!(!root.join("dup/index.md").exists());
}

/// A scratch copy whose files are writable (the shared corpora are read-only on disk).
fn writable(src: &std::path::Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let (d, root) = scratch(src);
    let status = std::process::Command::new("chmod").args(["-R", "u+w"]).arg(&root).status().unwrap();
    assert!(status.success());
    (d, root)
}

#[test]
fn fix_writes_through_the_changeset_path_logs_and_can_be_undone() {
    let (_d, root) = writable(&fixture("evolve-project"));
    let r = root.to_str().unwrap();
    let file = root.join(".evolve/entities/guideline/quote-paths-with-spaces-in-shell-commands.md");
    let before = std::fs::read(&file).unwrap();
    let out = folio(&["lint", r, "--rule", "legacy-trigger", "--fix", "--as", "human:ann"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout(&out).contains("no findings"), "{}", stdout(&out));
    let after = std::fs::read_to_string(&file).unwrap();
    // Only the key's bytes changed.
    assert_eq!(after.replacen("description:", "trigger:", 1).as_bytes(), before.as_slice());
    let log = std::fs::read_to_string(root.join(".evolve/audit.log")).unwrap();
    let last: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"], "fix");
    assert_eq!(last["by"], "human:ann");
    assert!(last["summary"].as_str().unwrap().contains("10 legacy-trigger"));
    let undo = folio(&["undo", r]);
    assert_eq!(undo.status.code(), Some(0), "{}", String::from_utf8_lossy(&undo.stderr));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn wikilink_fix_rewrites_only_the_link_and_keeps_catalogs_fresh() {
    let (_d, root) = writable(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    let r = root.to_str().unwrap();
    let file = root.join("incidents/2025-03-14-duplicate-charges.md");
    let before = std::fs::read_to_string(&file).unwrap();
    let out = folio(&["lint", r, "--fix", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "the hidden escape sequence is still an error");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["rule"] != "wikilink-syntax"));
    let after = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        after,
        before.replacen("[[idempotency-keys]]", "[idempotency-keys](/conventions/idempotency-keys.md)", 1)
    );
    assert_eq!(folio(&["index", "--check", r]).status.code(), Some(0));
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert!(log.contains("* **Fix**: [2025-03-14: Customers charged twice after gateway retries]"), "{log}");
}

#[test]
fn log_appends_the_aip10_lint_entry_with_count_bullets() {
    let (_d, root) = writable(&fixture("aip10-wiki"));
    let r = root.to_str().unwrap();
    let before = std::fs::read_to_string(root.join("_log.md")).unwrap();
    let out = folio(&["lint", r, "--log"]);
    assert_eq!(out.status.code(), Some(1), "source-modified is an error");
    let after = std::fs::read_to_string(root.join("_log.md")).unwrap();
    let added = after.strip_prefix(before.as_str()).expect("the log is appended to, not rewritten");
    let lines: Vec<&str> = added.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines[0].starts_with("## [") && lines[0].ends_with("] lint | full-pass"), "{added}");
    assert_eq!(lines[1], "- 3 orphans: q4-2014-targets, 2026-q2-runway, 2026-04-27-investor-call");
    assert_eq!(lines[2], "- 0 broken-ref");
    assert_eq!(lines[3], "- 1 stale: q4-2014-targets");
    assert_eq!(lines[4], "- 2 unresolved-contradictions: hiring-freeze, runway-extension-q2");
    assert_eq!(lines[5], "- 1 unsourced: bridge-note-terms");
    // The store's history now ends with this pass.
    let stats = folio_json(&["stats", r, "--json"]);
    assert_eq!(stats["history_events"], 5);
}
