//! Small file-system helpers shared by loading and writing.
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;

/// Files larger than this are read only up to it (a 50 MB agent dump is still an entity).
pub const MAX_READ: u64 = 16 * 1024 * 1024;

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

/// The bytes `from..to` of a file (fewer when it is shorter), opened through `opener` (files read
/// in path order share their folder's descriptor): one entry of a file that holds many is read
/// without reading the entries before it. One buffer of the exact size and one positioned read
/// a file: seeking and reading to the end grew the buffer and took a second `read` to see the
/// end, for each of the 100k bodies the content rules read.
pub fn read_range_with(opener: &mut FolderOpener, path: &Path, from: u64, to: u64) -> io::Result<Vec<u8>> {
    let (file, _) = opener.open_regular(path)?;
    let mut buf = vec![0u8; to.saturating_sub(from) as usize];
    let mut got = 0;
    while got < buf.len() {
        match read_at(&file, &mut buf[got..], from + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(got);
    Ok(buf)
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(not(unix))]
fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    file.read(buf)
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
    regular(options.open(path)?)
}

/// `open_regular` for files met folder by folder (a walk, a sorted list): each is opened
/// relative to its folder's descriptor, kept open while the files of that folder follow
/// one another, so the kernel looks up one name per file instead of every folder on the way
/// from `/` (docs/benchmarks.md, "Load figures").
#[derive(Default)]
pub struct FolderOpener {
    #[cfg(unix)]
    folder: Option<(Vec<u8>, std::os::fd::OwnedFd)>,
}

impl FolderOpener {
    pub fn open_regular(&mut self, path: &Path) -> io::Result<(File, fs::Metadata)> {
        #[cfg(unix)]
        if let Some((dir, name)) = split_folder(path) {
            use rustix::fs::{Mode, OFlags};
            use std::os::unix::ffi::OsStrExt;
            if self.folder.as_ref().is_none_or(|(open, _)| open.as_slice() != dir) {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                // A folder that cannot be opened leaves its files to `open_regular`.
                let fd = rustix::fs::open(std::ffi::OsStr::from_bytes(dir), flags, Mode::empty()).ok();
                self.folder = fd.map(|fd| (dir.to_vec(), fd));
            }
            if let Some((_, dir_fd)) = &self.folder {
                let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
                let name = std::ffi::OsStr::from_bytes(name);
                return regular(File::from(rustix::fs::openat(dir_fd, name, flags, Mode::empty())?));
            }
        }
        open_regular(path)
    }
}

/// The sizes and modification times of files under one root, met folder by folder (a sorted
/// list): each is stat'ed relative to its folder's descriptor, kept open while the files of that
/// folder follow one another, and named by its path under the root, so that the kernel looks up
/// one name per file instead of every folder from `/` and no whole path is built per file (a
/// cached store's check stats every entity file; docs/benchmarks.md, "Nineteenth session").
pub struct FolderStamper<'r> {
    root: &'r Path,
    /// The folder of the last file, under the root, and its descriptor (None: it could not be
    /// opened, and its files are stat'ed by their whole path).
    #[cfg(unix)]
    folder: Option<(&'r str, Option<std::os::fd::OwnedFd>)>,
}

impl<'r> FolderStamper<'r> {
    pub fn new(root: &'r Path) -> FolderStamper<'r> {
        FolderStamper {
            root,
            #[cfg(unix)]
            folder: None,
        }
    }

    /// The size and modification time (as `mtime_ns`) of the file at `rel` under the root,
    /// following a symlink as `fs::metadata` does.
    pub fn stamp(&mut self, rel: &'r str) -> io::Result<(u64, i64)> {
        #[cfg(unix)]
        {
            let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            if !matches!(name, "" | "." | "..") {
                if self.folder.as_ref().is_none_or(|(open, _)| *open != dir) {
                    use rustix::fs::{Mode, OFlags};
                    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                    let path = if dir.is_empty() { self.root.to_path_buf() } else { self.root.join(dir) };
                    self.folder = Some((dir, rustix::fs::open(&path, flags, Mode::empty()).ok()));
                }
                if let Some((_, Some(dir_fd))) = &self.folder {
                    let st = rustix::fs::statat(dir_fd, name, rustix::fs::AtFlags::empty())?;
                    return Ok((st.st_size as u64, mtime_ns_of(st.st_mtime as i64, st.st_mtime_nsec as i64)));
                }
            }
        }
        let meta = fs::metadata(self.root.join(rel))?;
        Ok((meta.len(), mtime_ns(&meta)))
    }
}

/// `path`'s folder and file name, split at its last `/` by hand: `Path::parent` and
/// `Path::file_name` parse every component, for every file opened.
#[cfg(unix)]
fn split_folder(path: &Path) -> Option<(&[u8], &[u8])> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let cut = memchr::memrchr(b'/', bytes)?;
    let (dir, name) = (&bytes[..cut], &bytes[cut + 1..]);
    // `/x.md` is in `/`; a name that is empty, `.` or `..` is not a file name to open.
    let dir = if dir.is_empty() { b"/".as_slice() } else { dir };
    (!matches!(name, b"" | b"." | b"..")).then_some((dir, name))
}

/// `file` with its metadata, when it is a regular file.
fn regular(file: File) -> io::Result<(File, fs::Metadata)> {
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

/// `mtime_ns` of a stat's seconds and nanoseconds: 0 before the epoch or for nanoseconds out of
/// range (where `Metadata::modified` fails), the nanoseconds since it, capped, otherwise.
#[cfg(unix)]
fn mtime_ns_of(secs: i64, nanos: i64) -> i64 {
    if secs < 0 || !(0..1_000_000_000).contains(&nanos) {
        return 0;
    }
    i64::try_from(i128::from(secs) * 1_000_000_000 + i128::from(nanos)).unwrap_or(i64::MAX)
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
    fn the_folder_opener_reads_what_open_regular_reads() {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["a", "b", "a/c"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        fs::write(dir.path().join("a/one.md"), "one").unwrap();
        fs::write(dir.path().join("a/two.md"), "two").unwrap();
        fs::write(dir.path().join("b/three.md"), "three").unwrap();
        fs::write(dir.path().join("a/c/four.md"), "four").unwrap();
        std::os::unix::fs::symlink("../b/three.md", dir.path().join("a/link.md")).unwrap();
        let fifo = dir.path().join("a/pipe.md");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let mut opener = FolderOpener::default();
        let mut read = |rel: &str| {
            opener.open_regular(&dir.path().join(rel)).map(|(mut f, meta)| {
                let mut s = String::new();
                f.read_to_string(&mut s).unwrap();
                assert_eq!(meta.len(), s.len() as u64);
                s
            })
        };
        // Folders in and out of order, a symlink, then the same folder again.
        for (rel, want) in
            [("a/one.md", "one"), ("b/three.md", "three"), ("a/c/four.md", "four"), ("a/link.md", "three")]
        {
            assert_eq!(read(rel).unwrap(), want, "{rel}");
        }
        assert_eq!(read("a/two.md").unwrap(), "two");
        assert_eq!(read("a/missing.md").unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(read("a/pipe.md").unwrap_err().to_string().contains("not a regular file"), "a FIFO never blocks");
        assert!(read("a/c").is_err(), "a folder is not read");
        assert_eq!(read("gone/x.md").unwrap_err().kind(), io::ErrorKind::NotFound, "a folder that went away");
        assert!(read("a/c/").is_err() && read("a/c/..").is_err(), "not file names: left to open_regular");
    }

    #[cfg(unix)]
    #[test]
    fn the_folder_stamper_stamps_what_metadata_says() {
        use std::time::{Duration, UNIX_EPOCH};
        let dir = tempfile::tempdir().unwrap();
        for sub in ["a", "b", "a/c"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        fs::write(dir.path().join("a/one.md"), "one").unwrap();
        fs::write(dir.path().join("b/three.md"), "three!").unwrap();
        fs::write(dir.path().join("a/c/four.md"), "four").unwrap();
        fs::write(dir.path().join("top.md"), "top").unwrap();
        std::os::unix::fs::symlink("../b/three.md", dir.path().join("a/link.md")).unwrap();
        std::os::unix::fs::symlink("nowhere.md", dir.path().join("a/dangling.md")).unwrap();
        // Times the kernel keeps to the nanosecond, one before the epoch.
        let at =
            |rel: &str, t| File::options().write(true).open(dir.path().join(rel)).unwrap().set_modified(t).unwrap();
        at("a/one.md", UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789));
        at("a/c/four.md", UNIX_EPOCH - Duration::from_secs(86_400));
        let metadata = |p: &Path| fs::metadata(p).map(|m| (m.len(), mtime_ns(&m)));
        let mut stamper = FolderStamper::new(dir.path());
        // Folders in and out of order, a symlink followed, a folder met again, the root's own file.
        for rel in ["a/one.md", "b/three.md", "a/c/four.md", "a/link.md", "a/one.md", "top.md", "a/c/four.md"] {
            assert_eq!(stamper.stamp(rel).unwrap(), metadata(&dir.path().join(rel)).unwrap(), "{rel}");
        }
        assert_eq!(stamper.stamp("a/one.md").unwrap(), (3, 1_700_000_000_123_456_789));
        assert_eq!(stamper.stamp("a/c/four.md").unwrap().1, 0, "before the epoch");
        for rel in ["a/missing.md", "a/dangling.md", "gone/x.md", "gone/y.md"] {
            assert_eq!(stamper.stamp(rel).unwrap_err().kind(), io::ErrorKind::NotFound, "{rel}");
        }
        assert!(stamper.stamp("a/c").is_ok_and(|(_, t)| t > 0), "a folder is stat'ed as metadata does");
        assert!(stamper.stamp("a/c/..").is_ok() && stamper.stamp("a/").is_ok(), "not file names: by the whole path");
        // A root given relative to the working folder.
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(dir.path(), &cwd);
        let mut stamper = FolderStamper::new(&relative);
        assert_eq!(stamper.stamp("b/three.md").unwrap(), metadata(&dir.path().join("b/three.md")).unwrap());
        assert_eq!(stamper.stamp("top.md").unwrap(), metadata(&dir.path().join("top.md")).unwrap());
        assert_eq!(mtime_ns_of(1, 1_000_000_000), 0, "nanoseconds out of range, as `modified` fails");
        assert_eq!(mtime_ns_of(i64::MAX, 0), i64::MAX, "capped");
    }

    /// `path` relative to `from` (both absolute), through `..` as needed.
    #[cfg(unix)]
    fn pathdiff(path: &Path, from: &Path) -> std::path::PathBuf {
        let (p, f): (Vec<_>, Vec<_>) = (path.components().collect(), from.components().collect());
        let common = p.iter().zip(&f).take_while(|(a, b)| a == b).count();
        let mut out = std::path::PathBuf::new();
        f[common..].iter().for_each(|_| out.push(".."));
        p[common..].iter().for_each(|c| out.push(c));
        out
    }

    #[cfg(unix)]
    #[test]
    fn folders_split_at_the_last_slash() {
        let split = |p: &str| split_folder(Path::new(p)).map(|(d, n)| (d.to_vec(), n.to_vec()));
        assert_eq!(split("/s/a/b.md"), Some((b"/s/a".to_vec(), b"b.md".to_vec())));
        assert_eq!(split("/b.md"), Some((b"/".to_vec(), b"b.md".to_vec())));
        assert_eq!(split("rel/b.md"), Some((b"rel".to_vec(), b"b.md".to_vec())));
        assert_eq!(split("b.md"), None);
        assert_eq!(split("/s/a/"), None);
        assert_eq!(split("/s/.."), None);
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
