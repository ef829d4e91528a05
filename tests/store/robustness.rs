//! Bad input never panics and never writes: every problem is recorded and named.
use crate::support;
use std::path::Path;
use support::*;

fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walk(root) {
        let bytes = std::fs::read(&e).unwrap_or_default();
        out.push((e.strip_prefix(root).unwrap().display().to_string(), bytes));
    }
    out.sort();
    out
}

fn walk(root: &Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    let Ok(rd) = std::fs::read_dir(root) else { return v };
    for e in rd.flatten() {
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            v.extend(walk(&e.path()));
        } else {
            v.push(e.path());
        }
    }
    v
}

fn hostile_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    write(&root, "index.md", "* [ok](ok.md) - fine\n");
    write(
        &root,
        "ok.md",
        "---\ntype: Note\ntitle: OK\n---\nLinks to [bad](bad-yaml.md) and [out](../../etc/passwd).\n",
    );
    write(&root, "bad-yaml.md", "---\ntype: [unclosed\ntitle: x\n---\nbody\n");
    write(&root, "unterminated.md", "---\ntype: Note\nno closing line\n");
    write(&root, "not-a-mapping.md", "---\n- a\n- b\n---\n");
    write(&root, "latin1.md", b"---\ntype: Note\ndescription: d\ntitle: caf\xe9\n---\nna\xefve\n");
    write(&root, "binary.md", b"\x00\x01\x02PNG\x00\x00garbage");
    write(
        &root,
        "escapes.md",
        "---\ntype: Note\ndescription: d\ntitle: \"Evil \\e]0;pwned\\a\"\n---\nhidden \x1b[2J clear and \u{202e}reversed\n",
    );
    let huge = format!("---\ntype: Note\ndescription: d\n---\n{}", "x".repeat(17 * 1024 * 1024));
    write(&root, "huge.md", huge);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", root.join("escape-link.md")).unwrap();
        std::os::unix::fs::symlink("loop-b.md", root.join("loop-a.md")).unwrap();
        std::os::unix::fs::symlink("loop-a.md", root.join("loop-b.md")).unwrap();
        std::os::unix::fs::symlink("..", root.join("dirloop")).unwrap();
    }
    (dir, root)
}

#[test]
fn hostile_files_load_with_problems_and_nothing_is_written() {
    let (_d, root) = hostile_store();
    let before = snapshot(&root);
    let r = root.to_str().unwrap();
    let stats = folio_json(&["stats", r, "--json", "--dialect", "okf"]);
    // Every .md file is an entity, even the broken ones (symlinks to directories are skipped).
    assert_eq!(stats["entities"], 11);
    assert_eq!(stats["unresolved_links"], 1, "the ../../etc/passwd link escapes the root");
    let problems = |id: &str| -> Vec<String> {
        folio_json(&["show", r, id, "--json", "--dialect", "okf"])["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["rule"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(problems("bad-yaml"), ["invalid-frontmatter"]);
    assert_eq!(problems("unterminated"), ["invalid-frontmatter"]);
    assert_eq!(problems("not-a-mapping"), ["invalid-frontmatter"]);
    assert_eq!(problems("latin1"), ["non-utf8"]);
    assert_eq!(problems("binary"), ["binary"]);
    assert_eq!(problems("escapes"), ["control-chars"]);
    assert_eq!(problems("huge"), ["too-large"]);
    #[cfg(unix)]
    {
        assert_eq!(problems("escape-link"), ["link-escapes-root"]);
        assert_eq!(problems("loop-a"), ["unreadable"]);
    }
    let ok = folio_json(&["show", r, "ok", "--json", "--dialect", "okf"]);
    assert_eq!(ok["links"][1]["status"], "escapes-root");
    assert_eq!(snapshot(&root), before, "loading wrote nothing");
}

#[test]
fn text_output_never_carries_escape_sequences() {
    let (_d, root) = hostile_store();
    let r = root.to_str().unwrap();
    let out = folio(&["show", r, "escapes", "--dialect", "okf"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(!text.contains('\x1b'), "raw ESC reached stdout: {text:?}");
    assert!(!text.contains('\u{202e}'));
    assert!(text.contains("\\u{1b}"));
    let recall = stdout(&folio(&["recall", r, "evil", "--dialect", "okf"]));
    assert!(!recall.contains('\x1b') && !recall.contains('\x07'), "{recall:?}");
}

#[test]
fn errors_are_one_line_naming_the_path_with_exit_2() {
    let out = folio(&["stats", "/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/definitely/not/here"));
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = folio(&["stats", file.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    let out = folio(&["stats", "--dialect", "nope", "."]);
    assert_eq!(out.status.code(), Some(2));
    let (_d, root) = hostile_store();
    let out = folio(&["show", root.to_str().unwrap(), "no-such-entity", "--dialect", "okf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no entity `no-such-entity`"));
}

#[test]
fn no_store_found_upward_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_folio")).arg("stats").current_dir(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no knowledge store found"));
}

#[test]
fn store_is_found_from_a_subfolder() {
    let (_tmp, store) = scratch(&corpus("okf-v0.1/ga4"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["stats", "--json"])
        .current_dir(store.join("references/metrics"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["entities"], 11);
    assert_eq!(v["dialect"], "okf");
}
