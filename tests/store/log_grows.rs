//! Agents keep writing while people review: an OKF `log.md` that an agent appends to while
//! folio writes is re-read and folio's event added to it, never a conflict, never a lost line.
use crate::support;
use support::*;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[test]
fn forty_writes_succeed_while_an_agent_appends_every_millisecond() {
    let (_d, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let log = root.join("log.md");
    let stop = Arc::new(AtomicBool::new(false));
    let agent = {
        let (stop, log) = (stop.clone(), log.clone());
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                // As an agent does: open, append one line in one write, close. (`writeln!` would
                // write the line in pieces: torn by any other appender, folio or not.)
                let mut f = std::fs::OpenOptions::new().append(true).create(true).open(&log).unwrap();
                f.write_all(format!("- agent line {n}\n").as_bytes()).unwrap();
                drop(f);
                n += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
            n
        })
    };
    let r = root.to_str().unwrap();
    let mut failures = Vec::new();
    for i in 0..40 {
        let value = format!("v{i}");
        let o = folio(&["set", r, "tables/orders", "owner", &value, "--as", "human:ann"]);
        if o.status.code() != Some(0) {
            failures.push(format!("run {i}: {}", String::from_utf8_lossy(&o.stderr)));
        }
    }
    stop.store(true, Ordering::Relaxed);
    let lines = agent.join().unwrap();
    assert!(failures.is_empty(), "{} of 40 writes failed:\n{}", failures.len(), failures.join("\n"));
    assert!(lines > 40, "the agent kept writing during the run ({lines} lines)");
    let text = std::fs::read_to_string(&log).unwrap();
    let missing: Vec<u32> = (0..lines).filter(|n| !text.contains(&format!("- agent line {n}\n"))).collect();
    let around = |n: &u32| {
        let at = text.find(&format!("- agent line {}\n", n.saturating_sub(1))).unwrap_or(0);
        text[at..].lines().take(4).collect::<Vec<_>>().join(" | ")
    };
    let context: Vec<String> = missing.iter().map(around).collect();
    assert!(missing.is_empty(), "agent lines lost: {missing:?} (after the line before: {context:?})");
    let folio_events = text.lines().filter(|l| l.contains("set `owner` to `v")).count();
    assert_eq!(folio_events, 40, "{text}");
    let orders = std::fs::read_to_string(root.join("tables/orders.md")).unwrap();
    assert!(orders.contains("owner: v39"), "{orders}");
    // Each agent line is there once (a line in flight while the log was swapped comes after
    // folio's event, possibly a line or two later than written, but never twice).
    assert!((0..lines).all(|n| text.matches(&format!("- agent line {n}\n")).count() == 1));
}
