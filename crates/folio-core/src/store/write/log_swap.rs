//! Adding folio's event to a log agents keep appending to. An append-only log that grew while
//! folio worked is not a conflict: the log is taken aside, folio's event is added to what it
//! holds at that moment, and every line an agent wrote meanwhile — into a fresh file it made
//! by path, or through a handle it had open on the old one — is put after it, in order.
use std::fs;
use std::io;
use std::path::Path;

use super::fs_ops;
use super::swap::{link_no_replace, sibling, sync_dir, write_temp};

/// Make the log at `path` hold `render(its bytes now)` plus whatever agents append meanwhile.
/// `journal(before, after)` makes the intent durable before the log moves: it runs once on the
/// log as read, and again should an agent change it between that read and the move (the
/// journal then names what is really replaced). An error there, or in the swap, puts the old
/// log back as it was.
pub fn add_to_log(
    path: &Path,
    render: impl Fn(Option<&[u8]>) -> Vec<u8>,
    mut journal: impl FnMut(Option<&[u8]>, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    // Journaled before the log is taken aside: a crash while it is aside finds it in the journal.
    let first = read_opt(path)?;
    let planned = render(first.as_deref());
    journal(first.as_deref(), &planned)?;
    let taken = sibling(path, "old");
    let seen = match fs_ops::rename(path, &taken) {
        Ok(()) => Some(fs::read(&taken)?),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    // Lines appended by path while the log is aside go into fresh files, taken aside in turn.
    let mut fresh: Vec<(std::path::PathBuf, usize)> = Vec::new();
    let give_back = |fresh: &[(std::path::PathBuf, usize)], e: io::Error| {
        let _ = restore(path, seen.is_some().then_some(taken.as_path()), fresh);
        e
    };
    let new = if seen == first {
        planned
    } else {
        let new = render(seen.as_deref());
        journal(seen.as_deref(), &new).map_err(|e| give_back(&fresh, e))?;
        new
    };
    // The log is written once; a fresh file that beat it to its place has its lines appended to
    // the temporary, which is placed again. (Writing the whole log again each time lost every
    // race against an agent that appends every millisecond, for as long as the agent kept on.)
    let tmp = write_temp(path, &new, seen.is_some().then_some(taken.as_path())).map_err(|e| give_back(&fresh, e))?;
    let placed = loop {
        match link_no_replace(&tmp, path) {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(e) => break Err(e),
        }
        match take_fresh(path) {
            Ok(Some((aside, bytes))) => {
                fresh.push((aside, bytes.len()));
                if let Err(e) = append(&tmp, &bytes) {
                    break Err(e);
                }
            }
            Ok(None) => {}
            Err(e) => break Err(e),
        }
    };
    let removed = fs_ops::remove_file(&tmp);
    placed.map_err(|e| give_back(&fresh, e))?;
    removed?;
    let mut watched = fresh;
    if let Some(seen) = &seen {
        watched.insert(0, (taken.clone(), seen.len()));
    }
    settle(path, &mut watched)?;
    for (aside, _) in watched {
        fs_ops::remove_file(&aside)?;
    }
    sync_dir(path)
}

fn read_opt(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Put the log taken aside (`taken`, None when there was none) back in its place, followed by
/// the lines agents wrote meanwhile into fresh files (`fresh`, in order, then any at `path`
/// now), so that an error leaves the log as agents left it. What was taken aside goes only once
/// it is in place again.
fn restore(path: &Path, taken: Option<&Path>, fresh: &[(std::path::PathBuf, usize)]) -> io::Result<()> {
    let mut asides: Vec<std::path::PathBuf> = taken.into_iter().map(Path::to_path_buf).collect();
    asides.extend(fresh.iter().map(|(a, _)| a.clone()));
    loop {
        if let Some((aside, _)) = take_fresh(path)? {
            asides.push(aside);
        }
        let Some(first) = asides.first() else { return Ok(()) };
        if link_no_replace(first, path)? {
            break;
        }
    }
    let mut later = Vec::new();
    for aside in &asides[1..] {
        later.extend(fs::read(aside)?);
    }
    append(path, &later)?;
    for aside in &asides {
        fs_ops::remove_file(aside)?;
    }
    sync_dir(path)
}

/// How long the files taken aside are watched for lines still arriving through a handle an
/// agent opened before they moved (a writer descheduled between its open and its write):
/// while any process holds one open (where the system says, Linux's `/proc`), up to a limit,
/// then a few quiet checks in a row.
const QUIET_CHECKS: u32 = 5;
const MAX_CHECKS: u32 = 2000;

/// Lines written into a file taken aside after it was read go to the end of the log.
fn settle(path: &Path, watched: &mut [(std::path::PathBuf, usize)]) -> io::Result<()> {
    let mut quiet = 0;
    for _ in 0..MAX_CHECKS {
        let mut grew = false;
        for (aside, used) in watched.iter_mut() {
            let now = fs::read(aside.as_path())?;
            if now.len() > *used {
                append(path, &now[*used..])?;
                *used = now.len();
                grew = true;
            }
        }
        let held = watched.iter().any(|(aside, _)| held_open(aside));
        quiet = if grew || held { 0 } else { quiet + 1 };
        if quiet >= QUIET_CHECKS {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    Ok(())
}

/// Whether some process has `file` open (false where the system does not say).
fn held_open(file: &Path) -> bool {
    held_by_lease(file).unwrap_or_else(|| held_by_proc(file))
}

/// Whether another open file holds `file`, told by a write lease, which Linux grants only on a
/// file nobody else has open — one call, where walking every process's open files took tens of
/// milliseconds per check, five checks per write (docs/benchmarks.md, "pgscan"). None where a
/// lease is not to be had (another user's file, a file system without leases).
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
fn held_by_lease(file: &Path) -> Option<bool> {
    use std::os::fd::AsRawFd;
    // asm-generic/fcntl.h's value on these machines (the libc crate does not name it).
    const F_SETSIG: libc::c_int = 10;
    let f = fs::File::open(file).ok()?;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns. Another's open breaking the lease
    // signals its holder: SIGURG, ignored unless handled, instead of SIGIO, which would end
    // folio. The lease goes with the descriptor.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return None;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) == 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return Some(false);
        }
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(true),
        _ => None,
    }
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))))]
fn held_by_lease(_file: &Path) -> Option<bool> {
    None
}

/// Whether some process has `file` open, from `/proc` (false where there is none).
fn held_by_proc(file: &Path) -> bool {
    let Ok(file) = fs::canonicalize(file) else { return false };
    let Ok(procs) = fs::read_dir("/proc") else { return false };
    procs.flatten().filter(|p| p.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit())).any(|p| {
        let Ok(fds) = fs::read_dir(p.path().join("fd")) else { return false };
        fds.flatten().any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target == file))
    })
}

/// Take the file an agent made at `path` aside: where it went and its bytes.
fn take_fresh(path: &Path) -> io::Result<Option<(std::path::PathBuf, Vec<u8>)>> {
    let aside = sibling(path, "old");
    match fs_ops::rename(path, &aside) {
        Ok(()) => {
            let bytes = fs::read(&aside)?;
            Ok(Some((aside, bytes)))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    fs_ops::append_synced(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_open_elsewhere_is_held_and_one_closed_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("held.txt");
        fs::write(&file, "a\n").unwrap();
        assert!(!held_open(&file) && !held_by_proc(&file));
        let leases = held_by_lease(&file).is_some();
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) && !leases {
            // Leases off (`/proc/sys/fs/leases-enable`) or a file system without them: /proc answers.
            eprintln!("no file lease here: only the /proc check is tested");
            assert!(std::env::var_os("CI").is_none(), "CI's machine grants file leases");
        }
        if leases {
            assert_eq!(held_by_lease(&file), Some(false), "a lease on one's own file");
        }
        for append in [false, true] {
            let handle = fs::OpenOptions::new().read(!append).append(append).open(&file).unwrap();
            assert!(held_open(&file) && held_by_proc(&file));
            if leases {
                assert_eq!(held_by_lease(&file), Some(true));
            }
            drop(handle);
            assert!(!held_open(&file));
        }
        assert!(!held_open(&dir.path().join("gone.md")));
    }

    fn newest_first(old: Option<&[u8]>) -> Vec<u8> {
        let mut out = b"folio event\n".to_vec();
        out.extend_from_slice(old.unwrap_or_default());
        out
    }

    fn agent_appends(log: &Path, line: &str) -> io::Result<()> {
        use std::io::Write;
        fs::OpenOptions::new().append(true).open(log)?.write_all(line.as_bytes())
    }

    /// As an agent appends by path: while the log is taken aside, into a fresh file.
    fn agent_appends_by_path(log: &Path, line: &str) -> io::Result<()> {
        use std::io::Write;
        fs::OpenOptions::new().append(true).create(true).open(log)?.write_all(line.as_bytes())
    }

    /// The journal's second call comes while the log is aside: the agent's line there makes a
    /// fresh file at the log's place.
    fn agent_writes_while_aside(log: &Path, calls: &mut usize) -> io::Result<()> {
        *calls += 1;
        match calls {
            1 => agent_appends(log, "agent line\n"),
            _ => agent_appends_by_path(log, "fresh line\n"),
        }
    }

    #[test]
    fn a_fresh_file_an_agent_made_while_the_log_was_aside_follows_folios_event() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(crate::store::dialect::okf::spec::LOG);
        fs::write(&log, "old line\n").unwrap();
        let mut calls = 0;
        add_to_log(&log, newest_first, |_, _| agent_writes_while_aside(&log, &mut calls)).unwrap();
        assert_eq!(calls, 2);
        assert_eq!(fs::read_to_string(&log).unwrap(), "folio event\nold line\nagent line\nfresh line\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporaries left");
    }

    #[test]
    fn a_failure_while_the_log_is_aside_gives_it_back_with_the_fresh_files_lines() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(crate::store::dialect::okf::spec::LOG);
        fs::write(&log, "old line\n").unwrap();
        let mut calls = 0;
        let err = add_to_log(&log, newest_first, |_, _| {
            agent_writes_while_aside(&log, &mut calls)?;
            if calls == 2 { Err(io::Error::other("disk full")) } else { Ok(()) }
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&log).unwrap(), "old line\nagent line\nfresh line\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no file left aside");
    }

    #[test]
    fn the_journal_names_the_log_before_it_moves_and_again_when_an_agent_wrote_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(crate::store::dialect::okf::spec::LOG);
        fs::write(&log, "old line\n").unwrap();
        let mut journaled: Vec<(Option<Vec<u8>>, Vec<u8>)> = Vec::new();
        add_to_log(&log, newest_first, |before, after| {
            // The log is still in place when the journal first hears of it.
            assert!(!journaled.is_empty() || log.exists());
            journaled.push((before.map(<[u8]>::to_vec), after.to_vec()));
            if journaled.len() == 1 { agent_appends(&log, "agent line\n") } else { Ok(()) }
        })
        .unwrap();
        assert_eq!(
            journaled,
            [
                (Some(b"old line\n".to_vec()), b"folio event\nold line\n".to_vec()),
                (Some(b"old line\nagent line\n".to_vec()), b"folio event\nold line\nagent line\n".to_vec()),
            ]
        );
        assert_eq!(fs::read_to_string(&log).unwrap(), "folio event\nold line\nagent line\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporaries left");
        // A missing log is created.
        fs::remove_file(&log).unwrap();
        add_to_log(&log, newest_first, |before, _| {
            assert_eq!(before, None);
            Ok(())
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&log).unwrap(), "folio event\n");
    }

    #[test]
    fn a_failed_journal_leaves_the_log_where_it_was_with_the_agents_lines() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(crate::store::dialect::okf::spec::LOG);
        fs::write(&log, "old line\n").unwrap();
        let err = add_to_log(&log, newest_first, |_, _| {
            agent_appends(&log, "agent line\n")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&log).unwrap(), "old line\nagent line\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
