//! Compare-and-swap on one file: replace, create or delete it only if it still holds the
//! bytes folio expects, without a window in which an agent's write can be silently lost.
//!
//! The file is first taken aside with an atomic rename and its bytes compared; the new file
//! is put in place with a hard link, which fails rather than replaces when an agent created
//! the path meanwhile. An agent writing by rename (as careful writers do) is therefore never
//! overwritten: either folio sees its bytes and reports a conflict, or its file wins.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::fs_ops;
use crate::store::model::digest;

#[derive(Debug)]
pub enum SwapError {
    /// The file does not hold what was expected; `on_disk` is what it holds (None: absent).
    Conflict {
        on_disk: Option<Vec<u8>>,
    },
    Io(io::Error),
}

impl From<io::Error> for SwapError {
    fn from(e: io::Error) -> Self {
        SwapError::Io(e)
    }
}

/// A hidden sibling name for temporary files (`.name.folio-<tag>-<pid>-<n>`).
pub(super) fn sibling(path: &Path, tag: &str) -> PathBuf {
    fs_ops::sibling(path, tag)
}

/// Whether a file name is one of folio's temporaries (left behind only by a crash).
pub fn is_temporary(name: &str) -> bool {
    fs_ops::temporary_owner(name).is_some()
}

fn read_opt(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) fn sync_dir(path: &Path) -> io::Result<()> {
    fs_ops::sync_parent(path)
}

/// Put `from` at `to` unless something is already there (then `from` is left where it is).
pub(super) fn link_no_replace(from: &Path, to: &Path) -> io::Result<bool> {
    match fs_ops::hard_link(from, to) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // File systems without hard links: a rename is the closest we can do.
        Err(e) if is_unsupported(&e) && !to.exists() => fs_ops::rename(from, to).map(|_| true),
        Err(e) => Err(e),
    }
}

/// A file system that has no hard links (not a full, broken or read-only one).
fn is_unsupported(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EPERM | libc::EOPNOTSUPP | libc::EXDEV | libc::EMLINK))
}

pub(super) fn write_temp(path: &Path, bytes: &[u8], like: Option<&Path>) -> io::Result<PathBuf> {
    if let Some(dir) = path.parent() {
        fs_ops::create_dir_all(dir)?;
    }
    let tmp = sibling(path, "new");
    let written = (|| {
        fs_ops::write_synced(&tmp, bytes)?;
        if let Some(meta) = like.and_then(|p| fs::metadata(p).ok()) {
            fs_ops::set_permissions(&tmp, meta.permissions())?;
        }
        Ok(())
    })();
    match written {
        Ok(()) => Ok(tmp),
        // A full disk fails mid-write: leave no half-written temporary behind.
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Give a taken-aside file back its place; if an agent wrote a newer file there meanwhile,
/// the newer one stays.
pub(super) fn put_back(taken: &Path, path: &Path) -> io::Result<()> {
    link_no_replace(taken, path)?;
    let _ = fs_ops::remove_file(taken);
    sync_dir(path)
}

/// Make `path` hold `new` (None: remove it) if it holds bytes with digest `expected`
/// (None: if it does not exist).
///
/// `journal(before)` runs once the file is found as expected and before anything is moved,
/// with the bytes compared (None for a new file): a file that conflicts is never journaled,
/// so a rollback never takes an agent's delete for folio's own swap cut short.
pub fn swap(
    path: &Path,
    expected: Option<&str>,
    new: Option<&[u8]>,
    journal: impl FnOnce(Option<&[u8]>) -> io::Result<()>,
) -> Result<(), SwapError> {
    match expected {
        None => {
            let Some(bytes) = new else { return Ok(()) };
            journal(None)?;
            let tmp = write_temp(path, bytes, None)?;
            let placed = link_no_replace(&tmp, path);
            // A temporary that cannot be removed fails the write: it is rolled back, and
            // recovery removes what is left, rather than a stray file staying in the store.
            let removed = fs_ops::remove_file(&tmp);
            if !placed? {
                return Err(SwapError::Conflict { on_disk: read_opt(path)? });
            }
            removed?;
            sync_dir(path)?;
            Ok(())
        }
        Some(expected) => {
            // Compare before moving anything: a file folio will not write is never taken aside,
            // so an agent deleting or renaming it meanwhile cannot see it come back.
            match read_opt(path)? {
                Some(now) if digest::of(&now) == expected => journal(Some(&now))?,
                on_disk => return Err(SwapError::Conflict { on_disk }),
            }
            let tmp = match new {
                Some(bytes) => Some(write_temp(path, bytes, Some(path))?),
                None => None,
            };
            let result = swap_existing(path, expected, tmp.as_deref());
            let removed = tmp.map_or(Ok(()), |tmp| fs_ops::remove_file(&tmp));
            result?;
            Ok(removed?)
        }
    }
}

fn swap_existing(path: &Path, expected: &str, tmp: Option<&Path>) -> Result<(), SwapError> {
    let taken = sibling(path, "old");
    match fs_ops::rename(path, &taken) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(SwapError::Conflict { on_disk: None }),
        Err(e) => return Err(e.into()),
    }
    let seen = fs::read(&taken)?;
    if digest::of(&seen) != expected {
        put_back(&taken, path)?;
        return Err(SwapError::Conflict { on_disk: Some(seen) });
    }
    if let Some(tmp) = tmp
        && !link_no_replace(tmp, path)?
    {
        // An agent created the file again while it was aside: its version stays.
        let _ = fs_ops::remove_file(&taken);
        return Err(SwapError::Conflict { on_disk: read_opt(path)? });
    }
    // An agent that had the old file open may have written into it while it was aside.
    let after = fs::read(&taken)?;
    if after != seen {
        // Give the agent's bytes back without replacing a file created meanwhile.
        fs_ops::remove_file(path)?;
        put_back(&taken, path)?;
        return Err(SwapError::Conflict { on_disk: Some(after) });
    }
    fs_ops::remove_file(&taken)?;
    sync_dir(path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: Option<&[u8]>) -> io::Result<()> {
        Ok(())
    }

    #[test]
    fn replace_create_delete_and_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        swap(&p, None, Some(b"one"), none).unwrap();
        assert!(
            matches!(swap(&p, None, Some(b"x"), none), Err(SwapError::Conflict { on_disk: Some(b) }) if b == b"one")
        );
        swap(&p, Some(&digest::of(b"one")), Some(b"two"), none).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let stale = swap(&p, Some(&digest::of(b"one")), Some(b"three"), none);
        assert!(matches!(stale, Err(SwapError::Conflict { on_disk: Some(b) }) if b == b"two"));
        assert_eq!(fs::read(&p).unwrap(), b"two", "a conflict leaves the file alone");
        swap(&p, Some(&digest::of(b"two")), None, none).unwrap();
        assert!(!p.exists());
        assert!(matches!(swap(&p, Some(&digest::of(b"two")), None, none), Err(SwapError::Conflict { on_disk: None })));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "no temporaries left");
    }

    #[test]
    fn only_a_file_found_as_expected_is_journaled_and_with_the_bytes_compared() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        fs::write(&p, "agent's").unwrap();
        let mut seen = Vec::new();
        let stale = swap(&p, Some(&digest::of(b"planned")), Some(b"new"), |b| {
            seen.push(b.map(<[u8]>::to_vec));
            Ok(())
        });
        assert!(matches!(stale, Err(SwapError::Conflict { .. })));
        assert!(seen.is_empty(), "a conflicting file is never journaled");
        swap(&p, Some(&digest::of(b"agent's")), Some(b"new"), |b| {
            seen.push(b.map(<[u8]>::to_vec));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [Some(b"agent's".to_vec())]);
        let refused = swap(&p, Some(&digest::of(b"new")), Some(b"newer"), |_| Err(io::Error::other("disk full")));
        assert!(matches!(refused, Err(SwapError::Io(_))));
        assert_eq!(fs::read(&p).unwrap(), b"new", "nothing moves when the journal cannot say so");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporaries left");
    }
}
