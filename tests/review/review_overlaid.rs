//! A verdict hands back the store as its writes left it (`Applied::overlaid`); the TUI shows
//! that store refreshed on the files written instead of deriving it a second time. It must be
//! the store a refresh of the store before the verdict gives, and the one a fresh load gives.
use crate::support;
use support::*;

use std::path::Path;

use folio::store::Store;
use folio::store::review::{Reviewer, Verdict, queue, verdict};
use folio::store::write::changeset::{Applied, WriteOptions};

fn graph(s: &Store) -> String {
    format!("{:?}\n{:?}\n{:?}", s.entities, s.backlinks, s.other_files)
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The files a write touched, as the TUI refreshes them (`review::jobs::reloaded`).
fn touched(store: &Store, applied: &Applied) -> Vec<std::path::PathBuf> {
    let mut rel: Vec<&String> = applied.files.iter().chain(&applied.catalogs).collect();
    rel.extend((!applied.log.is_empty()).then_some(&applied.log));
    rel.into_iter().map(|f| store.abs_path(f)).collect()
}

#[test]
fn the_store_a_verdict_hands_back_is_the_store_read_again() {
    let verdicts =
        [Verdict::Veto { reason: "wrong".into() }, Verdict::Approve { over: None, kind: None }, Verdict::Forget];
    let stores = [
        (fixture("opendray-homelab"), ""),
        (fixture("evolve-project"), ".evolve/entities"),
        (fixture("elophanto-knowledge"), ""),
        (fixture("aip10-wiki"), ""),
        (Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"), ""),
    ];
    let (mut vetoes_removing, mut handed_back) = (0, 0);
    for (src, sub) in &stores {
        for verdict in &verdicts {
            let (_d, root) = scratch(src);
            let root = root.join(sub);
            let store = Store::open(&root, None).unwrap();
            // The first item the inbox queues, with links into it where there is one.
            let items = queue::build(&store);
            let linked =
                items.iter().find(|i| store.find(&i.id).is_some_and(|e| !store.backlinks[e as usize].is_empty()));
            let item = linked.or(items.first()).unwrap_or_else(|| panic!("{}: nothing queued", src.display()));
            let idx = store.find(&item.id).unwrap();
            let plan = verdict::plan(&store, &[idx], verdict, &Reviewer::now("human:ann"), true).unwrap();
            let applied = plan.apply(&store, &WriteOptions::default()).unwrap();
            let what = format!("{} {:?} {}", src.display(), verdict, item.id);
            let Some(after) = applied.overlaid.as_ref() else {
                // Not handed on where a read would not see what the writes left (evolve's veto
                // moves its file out of the store's folder): the TUI reads the files again.
                assert!(
                    applied.files.iter().any(|f| f.split('/').any(|c| c.starts_with('.'))),
                    "{what}: no overlaid store handed back"
                );
                continue;
            };
            handed_back += 1;
            let paths = touched(&store, &applied);
            let (handed, report) = after.refreshed(&paths);
            let (again, expected) = store.refreshed(&paths);
            assert_eq!(graph(&handed), graph(&again), "{what}: the handed-back store differs from a refresh");
            let fresh = Store::open(&root, None).unwrap();
            assert_eq!(
                format!("{:?}", handed.entities.iter().map(|e| (&e.id, &e.links, &e.problems)).collect::<Vec<_>>()),
                format!("{:?}", fresh.entities.iter().map(|e| (&e.id, &e.links, &e.problems)).collect::<Vec<_>>()),
                "{what}: the handed-back store differs from a fresh load"
            );
            assert_eq!(handed.backlinks, fresh.backlinks, "{what}: backlinks differ from a fresh load");
            assert_eq!(sorted(report.changed), sorted(expected.changed), "{what}: changed");
            assert_eq!(sorted(report.added), sorted(expected.added), "{what}: added");
            assert_eq!(sorted(report.removed.clone()), sorted(expected.removed), "{what}: removed");
            if matches!(verdict, Verdict::Veto { .. }) && !report.removed.is_empty() {
                vetoes_removing += 1;
            }
        }
    }
    // The path this is for: a veto that takes its entity out of the store (evolve, opendray).
    assert!(handed_back >= 10, "only {handed_back} verdicts handed their store back");
    assert!(vetoes_removing >= 1, "no veto removed its entity file; the removal path was not exercised");
}
