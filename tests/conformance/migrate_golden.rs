//! Golden tests of `folio migrate --to okf` on the evolve corpus (and a store with wikilinks):
//! the migrated store must equal `tests/golden/migrate/<name>/` byte for byte.
//! Set `FOLIO_BLESS=1` to rewrite the expected output after an intended change.
use crate::support;
use support::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every non-hidden file under `dir` (folio's state and evolve's log stay out of the bundle).
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    out
}

fn writable(p: &Path) {
    let meta = std::fs::metadata(p).unwrap();
    let mut perms = meta.permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(p, perms).unwrap();
    if meta.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            writable(&e.unwrap().path());
        }
    }
}

/// Copy `src` (hidden folders included), migrate it, compare the bundle at `bundle` with the golden tree.
fn check(name: &str, src: &Path, bundle: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    copy_tree(src, &root);
    writable(&root);
    let before = tree(&root.join(bundle));
    let mut args = vec!["migrate", root.to_str().unwrap(), "--to", "okf", "--as", "human:golden"];
    args.extend(extra);

    let mut dry = args.clone();
    dry.push("--dry-run");
    let o = folio(&dry);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("+okf_version: \"0.1\""), "{}", stdout(&o));
    assert_eq!(tree(&root.join(bundle)), before, "--dry-run wrote something");

    let o = folio(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = tree(&root.join(bundle));
    let golden: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/migrate").join(name);
    if std::env::var_os("FOLIO_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (rel, text) in &got {
            write(&golden, rel, text);
        }
    }
    assert_eq!(got, tree(&golden), "{name}: migrated store differs from tests/golden/migrate/{name}");

    // Migrating again changes nothing.
    let again = folio(&args);
    assert!(again.status.success());
    assert!(stdout(&again).contains("nothing to change"), "{}", stdout(&again));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn evolve_demo_workspace() {
    check("altk-evolve-demo-workspace", &corpus("evolve/altk-evolve-demo-workspace"), ".evolve/entities", &[]);
}

#[test]
fn evolve_published_repo_takes_its_timestamp_from_published_at() {
    let Some(repo) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    check("public-repo-vinodmut", &repo, "", &["--dialect", "evolve"]);
}

#[test]
fn wikilinks_become_bundle_links_and_unresolved_ones_are_reported() {
    let stderr = check("evolve-wikilinks", &fixture("evolve-wikilinks"), ".evolve/entities", &[]);
    assert!(
        stderr.contains("guideline/prefer-uv-run.md:7: [[missing-note]] does not resolve; left as it is"),
        "{stderr}"
    );
    assert!(stderr.contains("2 entities rewritten, 3 wikilinks converted, 3 catalogs written"), "{stderr}");
}

#[test]
fn vaults_get_the_same_alignment() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(
        root,
        "notes/My Note.md",
        "---\ntype: Note\ntitle: My Note\nsummary: What it is\n---\nSee [[other|that one]] and [[nowhere]].\n",
    );
    write(root, "other.md", "---\ntype: Note\ndescription: The other\n---\nBack to [[My Note]].\n");
    let o = folio(&["migrate", root.to_str().unwrap(), "--to", "okf", "--as", "human:ann", "--dialect", "vault"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(root.join("notes/My Note.md")).unwrap(),
        "---\ntype: Note\ntitle: My Note\ndescription: What it is\n---\nSee [that one](/other.md) and [[nowhere]].\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("other.md")).unwrap(),
        "---\ntype: Note\ndescription: The other\n---\nBack to [My Note](/notes/My%20Note.md).\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("index.md")).unwrap(),
        "---\nokf_version: \"0.1\"\n---\n\n# Note\n\n* [other](/other.md) - The other\n\n# Subdirectories\n\n* [notes](notes/index.md)\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes/index.md")).unwrap(),
        "# Note\n\n* [My Note](/notes/My%20Note.md) - What it is\n"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("[[nowhere]] does not resolve"));
    let log = std::fs::read_to_string(root.join(".folio/audit.jsonl")).unwrap();
    assert!(log.contains("\"event\":\"migrate\""));
}
