//! A repository `folio-gen --git-commits` writes (with gitoxide: loose objects, no index), read
//! by folio's history and blame and checked against the real `git` on the same repository:
//! `git fsck` finds it sound, and `git log --follow` and `git blame` agree with folio on the hot
//! entity (many versions, renamed halfway) and on an entity edited once or twice. Enough commits
//! that the walk's commits cross between its threads in several batches.
use crate::support::git as git_support;

use std::collections::BTreeMap;
use std::path::Path;

use folio::store::Store;
use folio::store::history;

use git_support::{blame_commits as git_blame, run as git};

/// Every file under `.git` with its bytes: reading must leave them so.
fn git_dir(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_generated_history_agrees_with_git_log_follow_and_git_blame() {
    if !git_support::available() {
        eprintln!("SKIPPED: the `git` binary is not installed; this test checks folio against it");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("store");
    folio_gen::generate(folio::store::dialect::vault::KIND, 60, 7, &root).unwrap();
    let report = folio_gen::git::commit_history(&root, 300, 7).unwrap();
    assert!(report.hot.ends_with("-renamed.md"), "{report:?}");
    // What gitoxide wrote is a sound repository for git.
    git(&root, &["fsck", "--strict", "--no-progress"]);
    let before = git_dir(&root.join(".git"));
    let store = Store::load(&root, folio::store::dialect::vault::KIND, "test".into());
    // The entity the commit before HEAD edited: one or two versions, found late in no walk.
    let parent_subject = git(&root, &["log", "-1", "--format=%s", "HEAD~1"]);
    let common = format!("{}.md", parent_subject.split(": note").next().unwrap());
    for file in [report.hot.as_str(), common.as_str()] {
        let idx = store.entities.iter().position(|e| e.path == file).expect("the entity is in the store") as u32;
        let h = history::of_entity(&store, idx).unwrap();
        let ours: Vec<String> = h.versions.iter().filter_map(|v| v.commit.clone()).collect();
        let theirs: Vec<String> =
            git(&root, &["log", "--follow", "--format=%H", "--", file]).lines().map(str::to_string).collect();
        assert_eq!(ours, theirs, "{file}");
        if file == report.hot {
            assert_eq!(ours.len(), report.hot_versions);
            assert!(h.versions.iter().any(|v| v.status == "renamed"));
            let authors: std::collections::BTreeSet<_> = h.versions.iter().filter_map(|v| v.author.clone()).collect();
            assert!(authors.len() >= 2, "edits by more than one author: {authors:?}");
        }
        let blamed: Vec<String> = history::blame::blame(&h)
            .iter()
            .map(|l| h.versions[l.version].commit.clone().expect("every line is committed"))
            .collect();
        assert_eq!(blamed, git_blame(&root, file), "{file}");
    }
    assert_eq!(git_dir(&root.join(".git")), before, "reading history wrote into .git");
}
