//! The file-system operations of the write path, each one step of the fault harness
//! (`fault`): creating, writing, syncing, renaming, linking and removing files and folders.
//! Everything that changes a store or folio's state folder goes through here, so a sweep that
//! fails or crashes each step in turn reaches every place a write can be interrupted.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::fault::{self, Op, Verdict};

fn plain<T>(op: Op, path: &Path, act: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    fault::step(op, path, |v| match v {
        Verdict::Go => act(),
        Verdict::Fail(e) => Err(e),
    })
}

/// Write `bytes` into `file`; a failed step writes half of them first, as a filling disk does.
fn write_bytes(file: &mut File, path: &Path, bytes: &[u8]) -> io::Result<()> {
    fault::step(Op::Write, path, |v| match v {
        Verdict::Go => file.write_all(bytes),
        Verdict::Fail(e) => {
            let _ = file.write_all(&bytes[..bytes.len() / 2]);
            Err(e)
        }
    })
}

/// Create (or truncate) `path`, write `bytes` and fsync it.
pub fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = plain(Op::Create, path, || File::create(path))?;
    write_bytes(&mut f, path, bytes)?;
    plain(Op::Fsync, path, || f.sync_all())
}

/// Append `bytes` to `path` (created when missing) and fsync it.
pub fn append_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = plain(Op::Create, path, || OpenOptions::new().create(true).append(true).open(path))?;
    write_bytes(&mut f, path, bytes)?;
    plain(Op::Fsync, path, || f.sync_all())
}

/// Open the file a lock is taken on: a step only when it has to be created (opening one that
/// exists allocates nothing, even on a full disk).
pub fn open_for_lock(path: &Path, open: impl FnOnce() -> io::Result<File>) -> io::Result<File> {
    if path.is_file() { open() } else { plain(Op::Create, path, open) }
}

pub fn set_permissions(path: &Path, perms: fs::Permissions) -> io::Result<()> {
    plain(Op::Chmod, path, || fs::set_permissions(path, perms))
}

pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    plain(Op::Rename, to, || fs::rename(from, to))
}

pub fn hard_link(from: &Path, to: &Path) -> io::Result<()> {
    plain(Op::Link, to, || fs::hard_link(from, to))
}

pub fn remove_file(path: &Path) -> io::Result<()> {
    plain(Op::Unlink, path, || fs::remove_file(path))
}

pub fn remove_dir(path: &Path) -> io::Result<()> {
    plain(Op::Rmdir, path, || fs::remove_dir(path))
}

/// `fs::create_dir_all`, one step (only when something is missing).
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        return Ok(());
    }
    plain(Op::Mkdir, path, || fs::create_dir_all(path))
}

/// fsync the folder holding `path`, so a rename or link in it is durable.
pub fn sync_parent(path: &Path) -> io::Result<()> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else { return Ok(()) };
    plain(Op::Fsync, dir, || File::open(dir)?.sync_all())
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A hidden sibling name for one of folio's temporary files: `.name.folio-<tag>-<pid>-<n>`.
/// The process id lets recovery tell a crashed writer's leftovers from a live writer's files.
pub fn sibling(path: &Path, tag: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.folio-{tag}-{}-{n}", std::process::id()))
}

/// The process that made a temporary file named by `sibling` (None: not one of folio's).
pub fn temporary_owner(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let at =
        ["folio-tmp-", "folio-new-", "folio-old-"].iter().find_map(|tag| name.rfind(tag).map(|i| i + tag.len()))?;
    let pid = &name[at..];
    let pid = pid.split('-').next()?;
    pid.parse().ok()
}

/// Whether a temporary of folio's was left by a process that is gone (a crashed writer).
pub fn is_abandoned_temporary(name: &str) -> bool {
    match temporary_owner(name) {
        Some(pid) => pid != std::process::id() && !process_alive(pid),
        None => false,
    }
}

fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // Signal 0 asks only whether the process exists (EPERM: it does, as someone else's).
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Replace `path` by `bytes` atomically: a synced temporary renamed over it, the folder
/// synced. The file keeps its permissions; a failure leaves no temporary behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir_all(dir)?;
    let tmp = sibling(path, "tmp");
    let result = (|| {
        write_synced(&tmp, bytes)?;
        if let Ok(meta) = fs::metadata(path) {
            set_permissions(&tmp, meta.permissions())?;
        }
        rename(&tmp, path)?;
        sync_parent(path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The first symbolic link on the way from the store's top (its root, or the folder holding
/// it for what a format keeps beside the root) to `path` (relative to the root — `..` for
/// what lies beside it — or absolute).
pub fn link_on_the_way(root: &Path, path: &Path) -> Option<PathBuf> {
    let target = lexical(&root.join(path));
    let root = lexical(root);
    let top = [Some(root.as_path()), root.parent()].into_iter().flatten().find(|t| target.starts_with(t))?;
    let mut at = top.to_path_buf();
    for c in target.strip_prefix(top).ok()?.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Some(at),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Drop `.` and fold `..` into its parent without touching the file system.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_name_their_writer() {
        let t = sibling(Path::new("/s/log.md"), "old");
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".log.md.folio-old-"), "{name}");
        assert_eq!(temporary_owner(&name), Some(std::process::id()));
        assert!(!is_abandoned_temporary(&name), "this process is alive");
        assert_eq!(temporary_owner(".abc.folio-tmp-4194304"), Some(4_194_304));
        assert_eq!(temporary_owner(crate::store::dialect::okf::spec::LOG), None);
        assert_eq!(temporary_owner(".notes.md"), None);
        // A pid far above any the kernel hands out belongs to no live process.
        assert!(is_abandoned_temporary(".x.md.folio-new-2147483000-3"));
    }

    #[test]
    fn an_atomic_write_keeps_permissions_and_leaves_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
