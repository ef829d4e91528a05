//! A crash hook for the crash-safety harness, inert unless `FOLIO_CRASH_AT` is set.
//!
//! Every durable step of a write (a journal line, a file swap, the commit mark) calls `step`.
//! With `FOLIO_CRASH_AT=N` the N-th step announces itself on stderr (`folio: crash point N`)
//! and then blocks, so the harness can SIGKILL the process exactly there.
use std::sync::atomic::{AtomicU32, Ordering};

static STEPS: AtomicU32 = AtomicU32::new(0);

pub fn step(label: &str) {
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    let Some(at) = std::env::var("FOLIO_CRASH_AT").ok().and_then(|v| v.parse::<u32>().ok()) else { return };
    if n == at {
        eprintln!("folio: crash point {n} ({label})");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
}
