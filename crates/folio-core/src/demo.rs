//! The demo store, embedded in the binary and unpacked on first use.
//!
//! The unpacked copy is a normal store: the person may edit it and the edits persist. A marker
//! file records the content hash of what was unpacked. When a rebuilt binary carries a different
//! demo, the old copy is replaced if nobody touched it (its files still hash to the marker), and
//! set aside under a new name, with a notice, if somebody did: a demo is never stale and an edit
//! is never lost.
use std::io;
use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};
use sha2::{Digest, Sha256};

static DEMO: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../demo");

/// Marker file at the demo's root holding the content hash of the unpacked tree.
pub const MARKER: &str = ".folio-demo";

/// One file of a demo tree: path relative to the demo root (`/`-separated) and its bytes.
pub type DemoFile<'a> = (String, &'a [u8]);

/// Where the demo is unpacked: `$XDG_DATA_HOME/folio/demo` (or `~/.local/share/…`), falling
/// back to the temp directory.
pub fn location() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("folio").join("demo")
}

/// Unpack the demo store if needed and return its path. Tells the person on stderr when an
/// edited copy of an older demo was set aside.
pub fn materialize() -> io::Result<PathBuf> {
    let dir = location();
    let outcome = install(&dir, &embedded_files())?;
    if let Some(kept) = outcome.kept_edited {
        eprintln!(
            "folio: this version ships a new demo store; your edited copy was kept at {} and the new demo unpacked at {}",
            kept.display(),
            dir.display()
        );
    }
    Ok(dir)
}

/// Every file embedded under `demo/`, in no particular order.
pub fn embedded_files() -> Vec<DemoFile<'static>> {
    fn collect(dir: &'static Dir<'static>, out: &mut Vec<DemoFile<'static>>) {
        for f in dir.files() {
            out.push((slash_path(f.path()), f.contents()));
        }
        for d in dir.dirs() {
            collect(d, out);
        }
    }
    let mut out = Vec::new();
    collect(&DEMO, &mut out);
    out
}

/// What `install` did beyond making the current demo available.
#[derive(Debug, Default, PartialEq)]
pub struct Installed {
    /// Where an edited copy of a different demo was moved to, if one was.
    pub kept_edited: Option<PathBuf>,
}

/// What is at the demo location, compared with the demo this binary carries.
#[derive(Debug, PartialEq)]
enum Found {
    Nothing,
    /// The marker matches this binary's demo (edits made since are the person's and stay).
    Current,
    /// Another demo, exactly as it was unpacked: safe to replace.
    UntouchedOther,
    /// Another demo that was edited, or something folio did not unpack: must be kept.
    Foreign,
}

/// Make `dir` hold the demo made of `files`. Safe against other folio processes doing the same
/// at once: the tree is unpacked beside `dir` and renamed into place, and a lost race is retried.
pub fn install(dir: &Path, files: &[DemoFile]) -> io::Result<Installed> {
    let hash = content_hash(files.iter().map(|(p, b)| (p.as_str(), *b)));
    let mut outcome = Installed::default();
    for _ in 0..5 {
        match inspect(dir, &hash)? {
            Found::Current => return Ok(outcome),
            Found::Nothing => unpack_into_place(dir, files, &hash)?,
            Found::UntouchedOther => retire(dir)?,
            Found::Foreign => {
                if let Some(kept) = set_aside(dir)? {
                    outcome.kept_edited = Some(kept);
                }
            }
        }
    }
    Err(io::Error::other(format!("{}: the demo store kept changing while it was being unpacked", dir.display())))
}

fn inspect(dir: &Path, hash: &str) -> io::Result<Found> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(e) => return Err(with_path(e, dir)),
    };
    if !meta.is_dir() {
        return Ok(Found::Foreign);
    }
    let marker = match std::fs::read_to_string(dir.join(MARKER)) {
        Ok(m) => m.trim().to_string(),
        // An empty folder (e.g. made by hand) holds nothing worth keeping.
        // When removing it fails, unpacking beside it and renaming shows what is really there.
        Err(_) if is_empty_dir(dir) => {
            let _ = std::fs::remove_dir(dir);
            return Ok(Found::Nothing);
        }
        Err(_) => return Ok(Found::Foreign),
    };
    if marker == hash {
        return Ok(Found::Current);
    }
    Ok(if tree_hash(dir)? == marker { Found::UntouchedOther } else { Found::Foreign })
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).map(|mut it| it.next().is_none()).unwrap_or(false)
}

/// Write the tree and its marker into a fresh sibling folder, then rename it to `dir`. When
/// another process got there first the rename fails and the caller looks again.
fn unpack_into_place(dir: &Path, files: &[DemoFile], hash: &str) -> io::Result<()> {
    let staging = sibling(dir, "staging")?;
    let written = write_tree(&staging, files, hash);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&staging, dir) {
        let _ = std::fs::remove_dir_all(&staging);
        if !dir.exists() {
            return Err(with_path(e, dir));
        }
    }
    Ok(())
}

fn write_tree(root: &Path, files: &[DemoFile], hash: &str) -> io::Result<()> {
    std::fs::create_dir_all(root).map_err(|e| with_path(e, root))?;
    for (rel, bytes) in files {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(e, parent))?;
        }
        std::fs::write(&path, bytes).map_err(|e| with_path(e, &path))?;
    }
    let marker = root.join(MARKER);
    std::fs::write(&marker, format!("{hash}\n")).map_err(|e| with_path(e, &marker))
}

/// Remove an untouched older demo: renamed away first, so no reader sees it half-deleted.
fn retire(dir: &Path) -> io::Result<()> {
    let old = sibling(dir, "retired")?;
    match std::fs::rename(dir, &old) {
        Ok(()) => std::fs::remove_dir_all(&old).map_err(|e| with_path(e, &old)),
        // Another process moved it first.
        Err(_) if !dir.exists() => Ok(()),
        Err(e) => Err(with_path(e, dir)),
    }
}

/// Move an edited demo to `<dir>-edited-<unix seconds>` (with a counter if that exists).
/// `None` when another process moved it first.
fn set_aside(dir: &Path) -> io::Result<Option<PathBuf>> {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "demo".into());
    for n in 0..100 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let target = dir.with_file_name(format!("{name}-edited-{secs}{suffix}"));
        if target.exists() {
            continue;
        }
        return match std::fs::rename(dir, &target) {
            Ok(()) => Ok(Some(target)),
            Err(_) if !dir.exists() => Ok(None),
            Err(e) => Err(with_path(e, dir)),
        };
    }
    Err(io::Error::other(format!("{}: no free name to keep the edited demo under", dir.display())))
}

/// A hidden, process-unique folder beside `dir` (created parents included).
fn sibling(dir: &Path, what: &str) -> io::Result<PathBuf> {
    let parent = dir.parent().ok_or_else(|| io::Error::other(format!("{}: has no parent folder", dir.display())))?;
    std::fs::create_dir_all(parent).map_err(|e| with_path(e, parent))?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    Ok(parent.join(format!(".demo-{what}-{}-{nanos}", std::process::id())))
}

/// The content hash of a tree: every file's path and bytes, in path order.
pub fn content_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut sorted: Vec<_> = files.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut h = Sha256::new();
    for (path, bytes) in sorted {
        feed(&mut h, path, bytes);
    }
    format!("sha256:{}", hex(&h.finalize()))
}

/// The content hash of an unpacked tree on disk, marker excluded. Symlinks are not followed;
/// they (and anything else that is not a plain file) count as content of their own, so a tree
/// holding one never matches a demo.
pub fn tree_hash(root: &Path) -> io::Result<String> {
    let mut entries = Vec::new();
    walk(root, root, &mut entries)?;
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    for (rel, is_file) in entries {
        if is_file {
            let path = root.join(&rel);
            let bytes = std::fs::read(&path).map_err(|e| with_path(e, &path))?;
            feed(&mut h, &rel, &bytes);
        } else {
            feed(&mut h, &rel, b"\0not a regular file\0");
        }
    }
    Ok(format!("sha256:{}", hex(&h.finalize())))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, bool)>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| with_path(e, dir))? {
        let entry = entry.map_err(|e| with_path(e, dir))?;
        let path = entry.path();
        let rel = slash_path(path.strip_prefix(root).unwrap_or(&path));
        let ft = entry.file_type().map_err(|e| with_path(e, &path))?;
        if ft.is_dir() {
            walk(root, &path, out)?;
        } else if rel != MARKER {
            out.push((rel, ft.is_file()));
        }
    }
    Ok(())
}

fn feed(h: &mut Sha256, path: &str, bytes: &[u8]) {
    // Lengths delimit the fields, so no two different trees feed the same byte stream.
    h.update((path.len() as u64).to_le_bytes());
    h.update(path.as_bytes());
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn slash_path(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &'static str)]) -> Vec<DemoFile<'static>> {
        files.iter().map(|(p, t)| (p.to_string(), t.as_bytes())).collect()
    }

    #[test]
    fn embedded_demo_matches_its_unpacked_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("folio/demo");
        let files = embedded_files();
        assert!(files.iter().any(|(p, _)| p == "services/payment-gateway.md"));
        assert_eq!(install(&dir, &files).unwrap(), Installed::default());
        let hash = content_hash(files.iter().map(|(p, b)| (p.as_str(), *b)));
        assert_eq!(tree_hash(&dir).unwrap(), hash);
        assert_eq!(std::fs::read_to_string(dir.join(MARKER)).unwrap(), format!("{hash}\n"));
    }

    #[test]
    fn unchanged_demo_is_left_alone_even_when_edited() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        let v1 = tree(&[("a.md", "one"), ("sub/b.md", "two")]);
        install(&dir, &v1).unwrap();
        std::fs::write(dir.join("a.md"), "my edit").unwrap();
        assert_eq!(install(&dir, &v1).unwrap(), Installed::default());
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "my edit");
    }

    #[test]
    fn untouched_older_demo_is_replaced_silently() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        install(&dir, &tree(&[("a.md", "one"), ("gone.md", "old")])).unwrap();
        let out = install(&dir, &tree(&[("a.md", "one, revised")])).unwrap();
        assert_eq!(out, Installed::default());
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "one, revised");
        assert!(!dir.join("gone.md").exists());
        // Nothing is left behind beside it.
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["demo"]);
    }

    #[test]
    fn edited_older_demo_is_kept_under_a_new_name() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        install(&dir, &tree(&[("a.md", "one")])).unwrap();
        std::fs::write(dir.join("notes.md"), "added by the person").unwrap();
        let out = install(&dir, &tree(&[("a.md", "two")])).unwrap();
        let kept = out.kept_edited.expect("the edited copy is kept");
        assert!(kept.file_name().unwrap().to_string_lossy().starts_with("demo-edited-"));
        assert_eq!(std::fs::read_to_string(kept.join("notes.md")).unwrap(), "added by the person");
        assert_eq!(std::fs::read_to_string(kept.join("a.md")).unwrap(), "one");
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "two");
        assert!(!dir.join("notes.md").exists());
    }

    #[test]
    fn a_folder_without_marker_is_not_overwritten() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mine.md"), "not folio's").unwrap();
        let out = install(&dir, &tree(&[("a.md", "one")])).unwrap();
        let kept = out.kept_edited.unwrap();
        assert_eq!(std::fs::read_to_string(kept.join("mine.md")).unwrap(), "not folio's");
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "one");
        // An empty folder, though, is simply used.
        let empty = tmp.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        assert_eq!(install(&empty, &tree(&[("a.md", "one")])).unwrap(), Installed::default());
        assert!(empty.join("a.md").exists());
    }

    #[cfg(unix)]
    #[test]
    fn symlink_in_the_tree_counts_as_an_edit() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        install(&dir, &tree(&[("a.md", "one")])).unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("link")).unwrap();
        let out = install(&dir, &tree(&[("a.md", "two")])).unwrap();
        let kept = out.kept_edited.expect("a tree with a symlink is not replaced");
        assert!(std::fs::symlink_metadata(kept.join("link")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn racing_installs_agree_on_one_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("folio/demo");
        let files = tree(&[("a.md", "one"), ("b/c.md", "two")]);
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| assert_eq!(install(&dir, &files).unwrap(), Installed::default()));
            }
        });
        assert_eq!(std::fs::read_to_string(dir.join("b/c.md")).unwrap(), "two");
        let names: Vec<_> =
            std::fs::read_dir(tmp.path().join("folio")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["demo"]);
    }

    #[test]
    fn hash_depends_on_paths_and_bytes_not_order() {
        let a = content_hash([("x", b"1".as_slice()), ("y", b"2".as_slice())]);
        assert_eq!(a, content_hash([("y", b"2".as_slice()), ("x", b"1".as_slice())]));
        assert_ne!(a, content_hash([("x", b"1".as_slice()), ("y", b"3".as_slice())]));
        assert_ne!(a, content_hash([("x", b"1".as_slice()), ("z", b"2".as_slice())]));
        assert!(a.starts_with("sha256:") && a.len() == 7 + 64);
    }
}
