//! The write commands end to end: set, unset, mv, undo, log, --dry-run, --read-only.
use crate::support;
use support::*;

use std::fs;
use std::path::Path;

/// Corpus files are read-only; a scratch copy must be writable to be written.
fn writable_scratch(src: &Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = scratch(src);
    make_writable(&root);
    (dir, root)
}

fn make_writable(p: &Path) {
    let meta = fs::metadata(p).unwrap();
    let mut perms = meta.permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(p, perms).unwrap();
    if meta.is_dir() {
        for e in fs::read_dir(p).unwrap() {
            make_writable(&e.unwrap().path());
        }
    }
}

fn ok(args: &[&str]) -> String {
    let o = folio(args);
    assert_eq!(o.status.code(), Some(0), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

#[test]
fn set_and_unset_change_one_key_and_log_it() {
    let (_d, root) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let before = fs::read_to_string(root.join("tables/orders.md")).unwrap();
    let out = ok(&["set", r, "tables/orders", "status", "draft", "--as", "human:ann"]);
    assert!(out.contains("wrote tables/orders.md"), "{out}");
    let after = fs::read_to_string(root.join("tables/orders.md")).unwrap();
    assert_eq!(after, before.replace("status: stable\n", "status: draft\n"));
    let log = fs::read_to_string(root.join("log.md")).unwrap();
    assert!(
        log.contains("- **Set**: [Customer Orders](/tables/orders.md): set `status` to `draft` (human:ann)"),
        "{log}"
    );

    ok(&["unset", r, "tables/orders", "stale_after", "--as", "human:ann"]);
    let after_unset = fs::read_to_string(root.join("tables/orders.md")).unwrap();
    assert_eq!(after_unset, after.replace("stale_after: 2026-12-31T00:00:00Z\n", ""));

    let events = folio_json(&["log", r, "--json"]);
    let kinds: Vec<&str> = events.as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(&kinds[..3], ["unset", "set", "verified"]);
    assert_eq!(events[0]["entities"][0], "tables/orders");

    ok(&["undo", r, "--as", "human:ann"]);
    assert_eq!(fs::read_to_string(root.join("tables/orders.md")).unwrap(), after);
    ok(&["undo", r, "--as", "human:ann"]);
    assert_eq!(fs::read_to_string(root.join("tables/orders.md")).unwrap(), before);
    let o = folio(&["undo", r]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to undo"));
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let (_d, root) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let out = ok(&["set", r, "tables/orders", "status", "draft", "--dry-run"]);
    assert!(out.contains("--- a/tables/orders.md\n+++ b/tables/orders.md\n"), "{out}");
    assert!(out.contains("\n-status: stable\n+status: draft\n"), "{out}");
    // Issue 41: the preview names every file the write touches, the log and its bytes too.
    assert!(out.contains("also written:\n"), "{out}");
    assert!(out.contains("  log.md gains these bytes:\n") || out.contains("  log.md changes:\n"), "{out}");
    assert!(fs::read_to_string(root.join("tables/orders.md")).unwrap().contains("status: stable\n"));
    assert!(!root.join(".folio").exists());
}

#[test]
fn read_only_situations_refuse_before_touching_anything() {
    let (_d, root) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    let o = folio(&["set", r, "tables/orders", "status", "draft", "--read-only"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("read-only"));
    assert!(fs::read_to_string(root.join("tables/orders.md")).unwrap().contains("status: stable\n"));
    // A file that is read-only on disk: the test sets the bits itself (a corpus may be
    // writable). folio reads the permission bits, so this holds when running as root too.
    let (_d2, ro) = writable_scratch(&corpus("okf-v0.2/acme_retail"));
    let orders = ro.join("tables/orders.md");
    let before = fs::read(&orders).unwrap();
    let mut perms = fs::metadata(&orders).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&orders, perms).unwrap();
    let o = folio(&["set", ro.to_str().unwrap(), "tables/orders", "status", "draft"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("tables/orders.md: the file is read-only"));
    assert_eq!(fs::read(&orders).unwrap(), before, "nothing was written");

    let aip = tempfile::tempdir().unwrap();
    write(aip.path(), "KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: k\n---\n");
    write(aip.path(), "sources/call.md", "---\ntitle: Call\n---\ntext\n");
    let o = folio(&["set", aip.path().to_str().unwrap(), "sources/call", "title", "X"]);
    assert_eq!(o.status.code(), Some(2));
    // Files under sources/ are never entities of an AIP-10 wiki, so there is nothing to edit;
    // the write path refuses them too (store::readonly unit tests).
    assert!(String::from_utf8_lossy(&o.stderr).contains("sources/call"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read_to_string(aip.path().join("sources/call.md")).unwrap(), "---\ntitle: Call\n---\ntext\n");
}

#[test]
fn mv_repoints_every_link_form_and_undo_restores_every_byte() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(root, "notes/old.md", "---\ntitle: Old Note\n---\nSee [sib](../other/sib.md) and [[other/sib]].\n");
    write(root, "other/sib.md", "# Sib\n");
    let a = "---\nrelated: [\"[[old]]\"]\nsupersedes:\n  - notes/old\n---\n\
             Rel [x](../notes/old.md#part), abs [y](/notes/old.md), wiki [[old|alias]], path [[notes/old]], \
             title [[Old Note]], ref [r][def].\n\n[def]: ../notes/old.md \"t\"\n";
    write(root, "other/a.md", a);
    write(root, "top.md", "crlf [z](notes/old.md)\r\nend\r\n");
    let snapshot = |p: &Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = ["notes/old.md", "other/sib.md", "other/a.md", "top.md", "archive/new name.md"]
            .iter()
            .filter_map(|f| fs::read(p.join(f)).ok().map(|b| (f.to_string(), b)))
            .collect();
        v.sort();
        v
    };
    let before = snapshot(root);
    let r = root.to_str().unwrap();
    ok(&["mv", r, "notes/old", "archive/new name", "--as", "human:ann"]);
    assert!(!root.join("notes/old.md").exists());
    assert_eq!(
        fs::read_to_string(root.join("archive/new name.md")).unwrap(),
        "---\ntitle: Old Note\n---\nSee [sib](../other/sib.md) and [[other/sib]].\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("other/a.md")).unwrap(),
        "---\nrelated: [\"[[new name]]\"]\nsupersedes:\n  - archive/new name\n---\n\
         Rel [x](../archive/new%20name.md#part), abs [y](/archive/new%20name.md), wiki [[new name|alias]], \
         path [[archive/new name]], title [[Old Note]], ref [r][def].\n\n[def]: ../archive/new%20name.md \"t\"\n"
    );
    assert_eq!(fs::read_to_string(root.join("top.md")).unwrap(), "crlf [z](archive/new%20name.md)\r\nend\r\n");
    let shown = folio_json(&["show", r, "archive/new name", "--json"]);
    assert_eq!(shown["backlinks"].as_array().map(|b| b.len()), Some(2), "{shown}");

    ok(&["undo", r, "--as", "human:ann"]);
    assert_eq!(snapshot(root), before);
}

#[test]
fn moving_a_file_to_another_folder_keeps_its_own_relative_links_working() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(root, "a/note.md", "[up](../b/target.md) [img](pic.png)\n");
    write(root, "a/pic.png", "PNG");
    write(root, "b/target.md", "# T\n");
    ok(&["mv", root.to_str().unwrap(), "a/note", "c/d/note"]);
    assert_eq!(
        fs::read_to_string(root.join("c/d/note.md")).unwrap(),
        "[up](../../b/target.md) [img](../../a/pic.png)\n"
    );
}

#[test]
fn evolve_stores_are_edited_in_their_own_grammar_and_logged_to_audit_log() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let entity = "---\ntype: guideline\ntrigger: When a: b happens\n---\nbody\n";
    write(root, ".evolve/entities/guideline/x.md", entity);
    write(
        root,
        ".evolve/audit.log",
        "{\"event\": \"recall\", \"entities\": [\"guideline/x\"], \"ts\": \"2026-01-01T00:00:00Z\"}\n",
    );
    ok(&["set", root.to_str().unwrap(), "guideline/x", "owner", "ann: the owner", "--as", "human:ann"]);
    assert_eq!(
        fs::read_to_string(root.join(".evolve/entities/guideline/x.md")).unwrap(),
        "---\ntype: guideline\ntrigger: When a: b happens\nowner: ann: the owner\n---\nbody\n"
    );
    let log = fs::read_to_string(root.join(".evolve/audit.log")).unwrap();
    let last: serde_json::Value = serde_json::from_str(log.lines().nth(1).unwrap()).unwrap();
    assert_eq!(last["event"], "set");
    assert_eq!(last["entity"], "guideline/x");
    assert_eq!(last["by"], "human:ann");
    assert!(root.join(".evolve/folio/undo").is_dir(), "folio state sits beside the bundle");
    assert!(!root.join(".evolve/entities/.folio").exists());
}

#[test]
fn bad_input_is_refused_with_the_file_named() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(root, "broken.md", "---\ntitle: [unclosed\n---\nbody\n");
    write(root, "bin.md", b"\xff\xfe not utf8\n".as_slice());
    let r = root.to_str().unwrap();
    let o = folio(&["set", r, "broken", "status", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("broken.md"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = folio(&["set", r, "bin", "status", "x"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("bin.md: not valid UTF-8"));
    assert_eq!(fs::read_to_string(root.join("broken.md")).unwrap(), "---\ntitle: [unclosed\n---\nbody\n");
    let o = folio(&["mv", r, "broken", "../outside"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!root.parent().unwrap().join("outside.md").exists());
}

/// Issue 16 defect 1: a published evolve repository (a bare `guideline/` folder, no `.evolve/`)
/// has no project folder beside it, so a veto keeps the file inside the root, in folio's own
/// state folder; undo takes the file back and the folders the veto made, leaving the store's
/// parent folder exactly as it was.
#[test]
fn a_veto_in_a_bare_evolve_folder_stays_inside_the_root_and_undo_leaves_no_folders() {
    let Some(repo) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    let (d, root) = writable_scratch(&repo);
    let r = root.to_str().unwrap();
    let state = root.join(".folio");
    let before = tree(d.path(), &[&state]);
    let id = "guideline/in-this-workspace-environment-skip-directly-to-python";
    let entity = fs::read(root.join(format!("{id}.md"))).unwrap();

    ok(&["review", r, "veto", id, "--reason", "wrong", "--as", "human:ann"]);
    // Not a `.md`: evolve's readers glob `**/*.md` into hidden folders too (issue 39).
    let vetoed = state.join(format!("vetoed/{id}.md.vetoed"));
    assert_eq!(fs::read(&vetoed).unwrap(), entity, "the vetoed file is kept whole inside the root");
    let mut expected = before.clone();
    expected.remove(&format!("public-repo-vinodmut/{id}.md"));
    assert_eq!(tree(d.path(), &[&state]), expected, "nothing else changed, nothing beside the root");
    assert!(!d.path().join("vetoed").exists());

    ok(&["review", r, "undo", "--as", "human:ann"]);
    assert_eq!(tree(d.path(), &[&state]), before);
    assert!(!state.join("vetoed").exists(), "the folders the veto created are gone with its file");
}

/// Undo removes only the folders its changeset created: one that already existed, or that
/// holds someone else's file by now, stays.
#[test]
fn undo_keeps_folders_the_changeset_did_not_create_or_that_are_not_empty() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(root, "a.md", "# A\n");
    write(root, "b.md", "# B\n");
    write(root, "old/keep.md", "# Keep\n");
    let r = root.to_str().unwrap();
    ok(&["mv", r, "a", "new/deeper/a", "--as", "human:ann"]);
    ok(&["mv", r, "b", "old/b", "--as", "human:ann"]);
    ok(&["undo", r, "--as", "human:ann"]);
    assert!(root.join("old/keep.md").exists() && root.join("b.md").exists());
    write(root, "new/theirs.md", "# someone else's\n");
    ok(&["undo", r, "--as", "human:ann"]);
    assert!(root.join("a.md").exists());
    assert!(!root.join("new/deeper").exists(), "created by the move and empty again");
    assert!(root.join("new/theirs.md").exists(), "a folder holding another file stays");
}

/// The write gate, from the outside: a destination that leads out of the store through a
/// symlinked folder is refused with its path named, and no byte anywhere changes.
#[cfg(unix)]
#[test]
fn a_move_through_a_symlinked_folder_out_of_the_store_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("store");
    write(&root, "a.md", "# A\n\nSee [[b]].\n");
    write(&root, "b.md", "# B\n");
    fs::create_dir_all(d.path().join("away")).unwrap();
    std::os::unix::fs::symlink(d.path().join("away"), root.join("link")).unwrap();
    let before = tree(d.path(), &[]);
    let r = root.to_str().unwrap();
    let o = folio(&["mv", r, "a", "link/a", "--as", "human:ann"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("link/a.md") && err.contains("outside the store root"), "{err}");
    assert_eq!(tree(d.path(), &[]), before, "nothing was written, not even folio's state");
}

/// An OKF bundle of two concepts, with its catalog and log, in `<tmp>/store`.
#[cfg(unix)]
fn small_bundle(d: &Path) -> std::path::PathBuf {
    let root = d.join("store");
    write(&root, "a.md", "---\ntype: Note\ntitle: A\ndescription: the first\n---\nSee [B](b.md).\n");
    write(&root, "b.md", "---\ntype: Note\ntitle: B\ndescription: the second\n---\n");
    write(&root, "index.md", "# Note\n\n* [A](a.md) - the first\n* [B](b.md) - the second\n");
    write(&root, "log.md", "# Log\n");
    root
}

/// A hostile repository's `log.md -> a private file elsewhere`: folio refuses the write,
/// naming the link, and copies the private file nowhere (issue 38; SECURITY.md 6).
#[cfg(unix)]
#[test]
fn a_symlinked_log_is_refused_and_never_copied() {
    let d = tempfile::tempdir().unwrap();
    let root = small_bundle(d.path());
    fs::write(d.path().join("private"), "PRIVATE KEY MATERIAL\n").unwrap();
    fs::remove_file(root.join("log.md")).unwrap();
    std::os::unix::fs::symlink(d.path().join("private"), root.join("log.md")).unwrap();
    let before = tree(d.path(), &[]);
    let o = folio(&["set", root.to_str().unwrap(), "a", "title", "A2", "--as", "human:ann"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("log.md") && err.contains("symbolic link") && err.contains("nothing was written"), "{err}");
    assert_eq!(tree(d.path(), &[]), before, "no byte changed, not even folio's state");
    assert!(!root.join(".folio").exists(), "the private file is not copied into folio's objects");
}

/// A linked `.folio` would have folio keep its undo records, ledger and object copies outside
/// the store: refused, naming it.
#[cfg(unix)]
#[test]
fn a_symlinked_state_folder_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = small_bundle(d.path());
    fs::create_dir_all(d.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(d.path().join("elsewhere"), root.join(".folio")).unwrap();
    let before = tree(d.path(), &[]);
    let o = folio(&["set", root.to_str().unwrap(), "a", "title", "A2", "--as", "human:ann"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(".folio") && err.contains("symbolic link"), "{err}");
    assert_eq!(tree(d.path(), &[]), before);
    assert_eq!(fs::read_dir(d.path().join("elsewhere")).unwrap().count(), 0, "nothing written through the link");
    // The same with the store named by a relative path, as a person types it.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .current_dir(d.path())
        .args(["set", "store", "a", "title", "A2", "--as", "human:ann"])
        .env("FOLIO_NO_CACHE", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read_dir(d.path().join("elsewhere")).unwrap().count(), 0, "nothing written through the link");
    // Lint says so before anyone tries a write.
    let lint = folio(&["lint", root.to_str().unwrap(), "--no-cache"]);
    let out = String::from_utf8_lossy(&lint.stdout);
    assert!(out.contains("linked-state") && out.contains(".folio"), "{out}");
}

/// `mv` to an absolute path, out by `..`, or into a folder that is a link: a refusal naming the
/// path, nothing moved (issue 38: `/abs/path` silently became `STORE/abs/path.md`).
#[cfg(unix)]
#[test]
fn moves_to_absolute_dotted_or_linked_places_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = small_bundle(d.path());
    fs::create_dir_all(root.join("real")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
    let r = root.to_str().unwrap();
    let before = tree(d.path(), &[]);
    for (to, says) in [
        ("/abs/path", "an absolute path"),
        ("../x", "`..` leads out"),
        ("sub/../../x", "`..` leads out"),
        ("alias/a", "symbolic link"),
    ] {
        let o = folio(&["mv", r, "a", to, "--as", "human:ann"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{to}: {err}");
        assert!(err.contains(says), "{to}: {err}");
        assert_eq!(tree(d.path(), &[]), before, "{to}: nothing moved");
    }
    assert!(!root.join("abs").exists());
}

/// `review show --json` gives the digest of what the person read; a verdict made with
/// `--expect` it is refused once an agent changed the entity (issue 38), and a reason with an
/// escape sequence is refused rather than written raw.
#[cfg(unix)]
#[test]
fn a_verdict_is_bound_to_the_text_that_was_read() {
    let d = tempfile::tempdir().unwrap();
    let root = small_bundle(d.path());
    let r = root.to_str().unwrap();
    let shown = folio_json(&["review", r, "show", "a", "--json"]);
    let read = shown["item"]["hash"].as_str().expect("the item's digest").to_string();
    let listed = folio_json(&["review", r, "list", "--json"]);
    assert!(listed["items"].as_array().unwrap().iter().any(|i| i["id"] == "a" && i["hash"] == read.as_str()));
    let agent = "---\ntype: Note\ntitle: A\ndescription: the first, rewritten by an agent\n---\nSee [B](b.md).\n";
    fs::write(root.join("a.md"), agent).unwrap();
    let o = folio(&["review", r, "approve", "a", "--expect", &read, "--as", "human:ann"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("changed since it was read") && err.contains("nothing was decided"), "{err}");
    assert_eq!(fs::read_to_string(root.join("a.md")).unwrap(), agent, "nothing written");
    assert!(!fs::read_to_string(root.join("log.md")).unwrap().contains("Approve"));
    // Read again, decide on what it says now.
    let now = folio_json(&["review", r, "show", "a", "--json"])["item"]["hash"].as_str().unwrap().to_string();
    let o = folio(&["review", r, "approve", "a", "--expect", &format!("a={now}"), "--as", "human:ann"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    // A reason carrying an escape sequence never reaches a file.
    let before = tree(d.path(), &[]);
    let o = folio(&["review", r, "veto", "b", "--reason", "bad\u{1b}[2J", "--as", "human:ann"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("U+001B") && !err.contains('\u{1b}'), "{err}");
    assert_eq!(tree(d.path(), &[]), before);
}
