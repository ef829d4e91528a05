//! Small file-system helpers shared by loading and writing.
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;

/// Read at most `limit` bytes; the flag says whether the file was longer.
/// Only regular files are read: opening a FIFO blocks and a device never ends.
pub fn read_capped(path: &Path, limit: u64) -> io::Result<(Vec<u8>, bool)> {
    let (file, _) = open_regular(path)?;
    let mut buf = Vec::new();
    file.take(limit + 1).read_to_end(&mut buf)?;
    let truncated = buf.len() as u64 > limit;
    buf.truncate(limit as usize);
    Ok((buf, truncated))
}

/// Open a file for reading only when it is a regular file. The open itself never blocks (a FIFO
/// named like a note would wait for a writer forever): it is non-blocking, and what it opened
/// is checked with `fstat` before a byte is read.
pub fn open_regular(path: &Path) -> io::Result<(File, fs::Metadata)> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file (FIFO, socket or device); not read"));
    }
    Ok((file, meta))
}

/// `read_capped` for a file named by the store, refused when a symlink takes it outside `root`.
pub fn read_capped_inside(root: &Path, rel: &str, limit: u64) -> io::Result<(Vec<u8>, bool)> {
    let path = root.join(rel);
    let canonical_root = fs::canonicalize(root)?;
    if !fs::canonicalize(&path)?.starts_with(&canonical_root) {
        return Err(io::Error::other("symlink points outside the store"));
    }
    read_capped(&path, limit)
}

/// Replace `path` with `bytes` atomically: temp file in the same directory, fsync, rename,
/// fsync the directory. A crash leaves either the old or the new file, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.folio-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the permissions the file had.
            fs::set_permissions(&tmp, meta.permissions())?;
        }
        fs::rename(&tmp, path)?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Modification time in nanoseconds since the epoch (0 when unknown).
pub fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_read_and_atomic_write() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        write_atomic(&p, b"hello world").unwrap();
        assert_eq!(read_capped(&p, 5).unwrap(), (b"hello".to_vec(), true));
        assert_eq!(read_capped(&p, 50).unwrap(), (b"hello world".to_vec(), false));
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temp file left behind");
        assert!(read_capped(dir.path(), 5).is_err(), "a directory is not read");
    }

    #[cfg(unix)]
    #[test]
    fn reads_inside_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        fs::create_dir_all(&root).unwrap();
        fs::write(dir.path().join("secret"), "outside").unwrap();
        fs::write(root.join("a.md"), "inside").unwrap();
        std::os::unix::fs::symlink("../secret", root.join("out.md")).unwrap();
        std::os::unix::fs::symlink("a.md", root.join("in.md")).unwrap();
        assert_eq!(read_capped_inside(&root, "in.md", 100).unwrap().0, b"inside");
        assert!(read_capped_inside(&root, "out.md", 100).is_err());
    }
}
