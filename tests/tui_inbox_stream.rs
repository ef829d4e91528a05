//! The TUI inbox of a large store is built in batches, each shown as it comes (issue 44): the
//! list grows batch by batch and ends as exactly the CLI's queue (`folio review list --json`),
//! built from the files and again from the facts the cache kept. Its own binary: it points the
//! process's cache folder at a temporary one.
#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, SystemTime};

use folio::app::App;
use folio::app::event::Event;
use folio::app::jobs::Source;
use folio::app::settings::config::{self, ColorChoice};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Entities: more than the first batch (`review::jobs::FIRST_BATCH`) and its double.
const ENTITIES: usize = 1_600;

fn app(store: &Path) -> App {
    support::tui::pin_clock();
    let mut settings = config::load(None, ColorChoice::Never, false, None);
    settings.config.watch = false;
    let mut app = App::new(Source { path: Some(store.to_path_buf()), ..Source::default() }, settings, true);
    app.handle(Event::Resize(120, 40));
    app.settle(Duration::from_secs(120));
    app
}

/// Press `R` and take the inbox's batches one event at a time: the list's length after each
/// batch, and whether more were still to come then.
fn open_inbox(app: &mut App) -> Vec<(usize, bool)> {
    let mut seen = Vec::new();
    // The inline runner builds the queue in the caller: its batches wait as events.
    app.handle(Event::Key(KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT)));
    assert!(app.model.review.open);
    while let Some(ev) = app.pending() {
        let batch = matches!(ev, Event::Review(folio::app::review::jobs::Outcome::QueueBatch { .. }));
        app.handle(ev);
        if batch {
            seen.push((app.model.review.items.len(), app.model.review.building.is_some()));
        }
    }
    seen
}

#[test]
fn the_streamed_inbox_ends_as_exactly_the_clis_queue() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("okf");
    folio_gen::generate(folio::store::dialect::okf::KIND, ENTITIES, 5, &store).unwrap();
    // Written an hour ago, as a real store would be (files just written are never trusted).
    let then = SystemTime::now() - Duration::from_secs(3600);
    for e in ignore::Walk::new(&store).flatten().filter(|e| e.file_type().is_some_and(|t| t.is_file())) {
        std::fs::File::options().write(true).open(e.path()).unwrap().set_modified(then).unwrap();
    }
    let cache_dir = dir.path().join("cache");
    // This test binary holds this one test: nothing else reads the variable concurrently.
    unsafe { std::env::set_var("FOLIO_CACHE_DIR", &cache_dir) };

    let out = support::folio_in(&dir.path().join("home"))
        .args(["review"])
        .arg(&store)
        .args(["list", "--json"])
        .env("FOLIO_NOW", support::PINNED_NOW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = &cli["items"];
    assert!(want.as_array().is_some_and(|a| a.len() > 1_000), "a large queue: {}", cli["count"]);

    let facts_file = || {
        let found = ignore::WalkBuilder::new(&cache_dir).hidden(false).build().flatten();
        let mut files = found.map(|e| e.into_path()).filter(|p| p.to_string_lossy().ends_with(".folio-hashes"));
        files.next()
    };
    let mut kept = None;
    for round in ["from the files", "from the cache's facts"] {
        let mut app = app(&store);
        let batches = open_inbox(&mut app);
        assert!(batches.len() >= 2, "{round}: built in batches: {batches:?}");
        let (first, more) = batches[0];
        assert!(first > 0 && more, "{round}: the first batch shows before the others: {batches:?}");
        assert!(batches.windows(2).all(|w| w[0].0 <= w[1].0), "{round}: the list only grows: {batches:?}");
        assert_eq!(batches.last().map(|b| b.1), Some(false), "{round}: the last batch ends the build");
        let got = serde_json::to_value(&app.model.review.items).unwrap();
        assert!(got == *want, "{round}: the TUI's queue is the CLI's");
        let file = facts_file().expect("the TUI kept the facts in the cache");
        let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&file).unwrap());
        match kept {
            None => kept = Some(inode),
            Some(k) => assert_eq!(k, inode, "{round}: nothing was read again, so the facts were not rewritten"),
        }
    }
}
