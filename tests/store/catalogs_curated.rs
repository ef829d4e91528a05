//! Issue 22: catalogs people curated stay theirs. A hand-written catalog is stale only when
//! an entry is missing or dead, `folio index` changes only those lines (journaled, logged,
//! undoable), and generated catalogs stay byte-identical to the reference generator's.
use crate::support;
use std::collections::BTreeMap;
use std::path::Path;

use support::*;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A scratch copy of a store whose files may be written (the corpora may be read-only).
fn writable_copy(src: &Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, store) = scratch(src);
    let mut stack = vec![store.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            let mut perms = std::fs::metadata(&p).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&p, perms).unwrap();
        }
    }
    (tmp, store)
}

/// Every catalog file under `root` with its text.
fn catalogs(root: &Path, names: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if names.iter().any(|n| p.file_name().unwrap() == *n) {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

/// The lines only in `before`, and the lines only in `after` (both in order).
fn changed_lines(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let gone = before.lines().filter(|l| !after.lines().any(|a| a == *l)).map(String::from).collect();
    let new = after.lines().filter(|l| !before.lines().any(|b| b == *l)).map(String::from).collect();
    (gone, new)
}

#[test]
fn index_check_passes_on_every_shared_okf_corpus() {
    for rel in [
        "okf-v0.1/crypto_bitcoin",
        "okf-v0.1/ga4",
        "okf-v0.1/stackoverflow",
        "okf-v0.2/acme_retail",
        "okf-v0.2/crypto_bitcoin",
        "okf-v0.2/ga4",
    ] {
        let (_tmp, store) = writable_copy(&corpus(rel));
        let out = folio(&["index", "--check", s(&store)]);
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stdout(&out));
        // `folio index` writes nothing on them: the generated ones match byte for byte.
        let before = catalogs(&store, &["index.md"]);
        let out = folio(&["index", s(&store)]);
        assert!(stdout(&out).contains("0 written"), "{rel}: {}", stdout(&out));
        assert_eq!(catalogs(&store, &["index.md"]), before, "{rel}");
    }
}

#[test]
fn acme_retail_loses_one_entry_and_gains_one_and_nothing_else() {
    let (_tmp, store) = writable_copy(&corpus("okf-v0.2/acme_retail"));
    let before = catalogs(&store, &["index.md"]);
    std::fs::remove_file(store.join("metrics/gross-margin-legacy.md")).unwrap();
    write(
        &store,
        "metrics/net-revenue.md",
        "---\ntype: Metric\ntitle: Net Revenue\ndescription: Revenue net of returns.\n---\nNet of returns.\n",
    );
    let check = folio(&["index", "--check", s(&store)]);
    assert_eq!(check.status.code(), Some(1));
    let listed = stdout(&check);
    assert!(listed.contains("stale: metrics/index.md"), "{listed}");
    assert!(listed.contains("missing net-revenue.md") && listed.contains("dead gross-margin-legacy.md"), "{listed}");
    let lint = stdout(&folio(&["lint", s(&store)]));
    assert!(lint.contains("missing net-revenue.md; dead gross-margin-legacy.md"), "{lint}");

    // The preview is the diff, and writes nothing.
    let dry = stdout(&folio(&["index", "--dry-run", s(&store)]));
    assert!(dry.contains("+* [Net Revenue](net-revenue.md) - Revenue net of returns."), "{dry}");
    assert_eq!(catalogs(&store, &["index.md"]), before);

    let out = folio(&["index", s(&store)]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let after = catalogs(&store, &["index.md"]);
    for (path, text) in &after {
        if path != "metrics/index.md" {
            assert_eq!(text, &before[path], "{path} must not change");
        }
    }
    let (gone, new) = changed_lines(&before["metrics/index.md"], &after["metrics/index.md"]);
    assert_eq!(
        gone,
        [
            "* [Gross Margin (legacy, pre-FY2026)](gross-margin-legacy.md) - Deprecated pre-2026 formula, kept for historical reproducibility."
        ]
    );
    assert_eq!(new, ["* [Net Revenue](net-revenue.md) - Revenue net of returns."]);
    assert_eq!(after["metrics/index.md"].lines().count(), before["metrics/index.md"].lines().count());
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(0));
    // Logged in the bundle's log, and undone by `folio undo`.
    assert!(std::fs::read_to_string(store.join("log.md")).unwrap().contains("**Index**"));
    assert_eq!(folio(&["undo", s(&store)]).status.code(), Some(0));
    assert_eq!(catalogs(&store, &["index.md"]), before);
}

#[test]
fn lint_fix_keeps_a_hand_written_root_index() {
    let (_tmp, store) = writable_copy(&corpus("okf-v0.2/acme_retail"));
    let root = "# Acme Retail\n\nCurated by finance.\n\n## Start here\n\n- [Metrics](metrics/) — the headline numbers\n- [Old](retired/index.md) — gone\n";
    write(&store, "index.md", root);
    let out = folio(&["lint", "--fix", "--rule", "catalog-stale", s(&store)]);
    assert!(out.status.code().is_some(), "{}", stdout(&out));
    let fixed = std::fs::read_to_string(store.join("index.md")).unwrap();
    // The title, introduction, heading and curated entry stay; the dead entry goes; the
    // missing folders are added in the list's own style, in alphabetical place (the list is).
    assert_eq!(
        fixed,
        "# Acme Retail\n\nCurated by finance.\n\n## Start here\n\n- [attesters](attesters/index.md)\n\
         - [computations](computations/index.md)\n- [Metrics](metrics/) — the headline numbers\n\
         - [policies](policies/index.md)\n- [skills](skills/index.md)\n- [tables](tables/index.md)\n"
    );
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(0));
}

#[test]
fn aip10_curated_index_changes_one_line_each_way() {
    let (_tmp, store) = scratch(&fixture("aip10-wiki"));
    // A person rewords an entry and reorders the concepts: still current.
    let generated = std::fs::read_to_string(store.join("_index.md")).unwrap();
    let mut lines: Vec<String> = generated.lines().map(String::from).collect();
    let hiring = lines.iter().position(|l| l.contains("(concepts/hiring-freeze.md)")).unwrap();
    lines[hiring] = "* [Hiring freeze](concepts/hiring-freeze.md) - no hires until October.".into();
    let cost = lines.iter().position(|l| l.contains("(concepts/cost-cut-plan.md)")).unwrap();
    lines.swap(hiring, cost);
    let curated = lines.join("\n") + "\n";
    write(&store, "_index.md", &curated);
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(0));

    std::fs::remove_file(store.join("concepts/q4-2014-targets.md")).unwrap();
    write(&store, "concepts/new-idea.md", "---\nslug: new-idea\nkind: concept\ntitle: New idea\n---\nFresh.\n");
    let check = stdout(&folio(&["index", "--check", s(&store)]));
    assert!(
        check.contains("missing concepts/new-idea.md") && check.contains("dead concepts/q4-2014-targets.md"),
        "{check}"
    );
    assert_eq!(folio(&["index", s(&store)]).status.code(), Some(0));
    let after = std::fs::read_to_string(store.join("_index.md")).unwrap();
    let (gone, new) = changed_lines(&curated, &after);
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(gone[0].contains("(concepts/q4-2014-targets.md)"));
    assert_eq!(new, ["* [New idea](concepts/new-idea.md) `new-idea` - Fresh."]);
    assert!(after.contains("* [Hiring freeze](concepts/hiring-freeze.md) - no hires until October.\n"));
    assert_eq!(folio(&["index", "--check", s(&store)]).status.code(), Some(0));
}

#[test]
fn a_missing_catalog_is_generated_as_before() {
    let (_tmp, store) = scratch(&fixture("aip10-wiki"));
    let generated = std::fs::read_to_string(store.join("_index.md")).unwrap();
    std::fs::remove_file(store.join("_index.md")).unwrap();
    assert_eq!(folio(&["index", s(&store)]).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(store.join("_index.md")).unwrap(), generated);
}
