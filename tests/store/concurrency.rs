//! Concurrency: an agent keeps rewriting files (as careful writers do: temp file + rename)
//! while folio applies changesets to the same files. No agent write may be lost: each survives
//! or folio reports a conflict.
use crate::support;
use support::*;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use folio::store::Store;
use folio::store::model::digest;
use folio::store::write::audit::AuditEvent;
use folio::store::write::changeset::{Changeset, WriteError, WriteOptions};

const FILES: usize = 4;

fn agent_write(root: &Path, file: &str, text: &str, n: u64) {
    let tmp = root.join(format!(".agent-tmp-{n}"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, root.join(file)).unwrap();
}

#[test]
fn agent_writes_survive_or_are_reported_as_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for i in 0..FILES {
        write(&root, &format!("f{i}.md"), format!("agent f{i} v0\n"));
    }
    let store = Store::load(&root, folio::store::dialect::vault::KIND, "test".into());
    let stop = Arc::new(AtomicBool::new(false));
    // The last content the agent wrote to each file.
    let last: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new((0..FILES).map(|i| format!("agent f{i} v0\n")).collect()));
    let agent = {
        let (root, stop, last) = (root.clone(), stop.clone(), last.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let i = (n as usize) % FILES;
                let text = format!("agent f{i} v{n}\n");
                let mut guard = last.lock().unwrap();
                agent_write(&root, &format!("f{i}.md"), &text, n);
                guard[i] = text;
                drop(guard);
                std::thread::yield_now();
            }
            n
        })
    };
    let (mut applied, mut conflicts) = (0, 0);
    for round in 0..120 {
        let i = round % FILES;
        let file = format!("f{i}.md");
        let Ok(seen) = std::fs::read(root.join(&file)) else { continue };
        let mut new = seen.clone();
        new.extend_from_slice(format!("folio edit {round}\n").as_bytes());
        let cs = Changeset::new(AuditEvent::new("set", "human:test", "append")).replace(&file, digest::of(&seen), new);
        match store.apply(cs, &WriteOptions::default()) {
            Ok(_) => applied += 1,
            Err(WriteError::Conflict { .. }) => conflicts += 1,
            Err(e) => panic!("round {round}: {e}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let agent_writes = agent.join().unwrap();
    assert!(agent_writes > 0);
    assert!(applied + conflicts == 120);
    // Each file's final content starts with the agent's last write to it: either the agent's
    // write is the file, or folio edited exactly that version (it appends to what it read).
    let last = last.lock().unwrap();
    for (i, agent_text) in last.iter().enumerate() {
        let now = std::fs::read_to_string(root.join(format!("f{i}.md"))).unwrap();
        assert!(
            now.starts_with(agent_text.as_str()),
            "f{i}: agent's last write `{agent_text}` lost; file holds `{now}`"
        );
    }
    assert!(!root.join(".folio/journal.jsonl").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".folio-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_quiet_store_applies_every_changeset() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "v0\n");
    let store = Store::load(dir.path(), folio::store::dialect::vault::KIND, "test".into());
    for round in 0..5 {
        let seen = std::fs::read(dir.path().join("a.md")).unwrap();
        let cs = Changeset::new(AuditEvent::new("set", "human:test", "append")).replace(
            "a.md",
            digest::of(&seen),
            format!("v{}\n", round + 1),
        );
        store.apply(cs, &WriteOptions::default()).unwrap();
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("a.md")).unwrap(), "v5\n");
}
