//! Fault injection at every file-system step of a write, inert unless `FOLIO_FAULT` is set.
//!
//! Each operation the write path performs (`fs_ops`) is one numbered step, in the order the
//! process performs them. `FOLIO_FAULT` makes one step misbehave, as SQLite's crash and I/O
//! error tests do:
//!
//! - `trace`: every step on stderr as `folio-step N OP PATH` (the sequence a command performs);
//! - `kill-before:N` / `kill-after:N`: the process is SIGKILLed just before or just after step N;
//! - `fail:N:ERRNO`: step N fails with `ENOSPC`, `EIO`, `EACCES` or `EROFS` (a write that fails
//!   with ENOSPC or EIO has written half its bytes first, as a filling disk does);
//! - `full:N`: the disk is full from step N on — every create, write, mkdir and link fails with
//!   ENOSPC, rollback's included (renames and unlinks still work, as on a real full disk).
//!
//! tests/faults/faults.rs and scripts/fault-sweep run every command against every step and fault.
use std::io;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The kinds of file-system operation a write performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Create,
    Write,
    Fsync,
    Rename,
    Link,
    Unlink,
    Mkdir,
    Rmdir,
    Chmod,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Write => "write",
            Op::Fsync => "fsync",
            Op::Rename => "rename",
            Op::Link => "link",
            Op::Unlink => "unlink",
            Op::Mkdir => "mkdir",
            Op::Rmdir => "rmdir",
            Op::Chmod => "chmod",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Trace,
    KillBefore(u32),
    KillAfter(u32),
    Fail(u32, i32),
    Full(u32),
}

/// The errors a disk gives that the sweep injects, by name.
pub const ERRNOS: &[(&str, i32)] =
    &[("ENOSPC", libc::ENOSPC), ("EIO", libc::EIO), ("EACCES", libc::EACCES), ("EROFS", libc::EROFS)];

fn parse(spec: &str) -> Option<Plan> {
    let mut parts = spec.trim().split(':');
    let plan = match (parts.next()?, parts.next(), parts.next()) {
        ("trace", None, None) => Plan::Trace,
        ("kill-before", Some(n), None) => Plan::KillBefore(n.parse().ok()?),
        ("kill-after", Some(n), None) => Plan::KillAfter(n.parse().ok()?),
        ("fail", Some(n), Some(e)) => Plan::Fail(n.parse().ok()?, ERRNOS.iter().find(|(name, _)| *name == e)?.1),
        ("full", Some(n), None) => Plan::Full(n.parse().ok()?),
        _ => return None,
    };
    Some(plan)
}

fn plan() -> Option<Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    *PLAN.get_or_init(|| std::env::var("FOLIO_FAULT").ok().and_then(|s| parse(&s)))
}

static STEPS: AtomicU32 = AtomicU32::new(0);

fn kill() -> ! {
    // SIGKILL, as a crash or `kill -9` ends a process: no destructor or rollback runs.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    loop {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// What the fault plan asks of the step being taken.
pub enum Verdict {
    /// Perform it as usual.
    Go,
    /// Fail it with this error instead.
    Fail(io::Error),
}

/// Number one step and apply the fault plan to it: `act` performs the operation (it receives
/// the verdict so that a write can fail half-way, as a filling disk does).
pub fn step<T>(op: Op, path: &Path, act: impl FnOnce(Verdict) -> io::Result<T>) -> io::Result<T> {
    let Some(plan) = plan() else { return act(Verdict::Go) };
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    match plan {
        Plan::Trace => {
            eprintln!("folio-step {n} {} {}", op.name(), path.display());
            act(Verdict::Go)
        }
        Plan::KillBefore(k) if k == n => kill(),
        Plan::KillAfter(k) if k == n => {
            let _ = act(Verdict::Go);
            kill()
        }
        Plan::Fail(k, errno) if k == n => act(Verdict::Fail(io::Error::from_raw_os_error(errno))),
        Plan::Full(k) if n >= k && matches!(op, Op::Create | Op::Write | Op::Mkdir | Op::Link) => {
            act(Verdict::Fail(io::Error::from_raw_os_error(libc::ENOSPC)))
        }
        _ => act(Verdict::Go),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_read_from_their_spelling() {
        assert_eq!(parse("trace"), Some(Plan::Trace));
        assert_eq!(parse("kill-before:7"), Some(Plan::KillBefore(7)));
        assert_eq!(parse("kill-after:12"), Some(Plan::KillAfter(12)));
        assert_eq!(parse("fail:3:ENOSPC"), Some(Plan::Fail(3, libc::ENOSPC)));
        assert_eq!(parse("fail:3:EROFS"), Some(Plan::Fail(3, libc::EROFS)));
        assert_eq!(parse("fail:3:EWHAT"), None);
        assert_eq!(parse("full:9"), Some(Plan::Full(9)));
        assert_eq!(parse("kill-before"), None);
        assert_eq!(parse("nonsense"), None);
    }
}
