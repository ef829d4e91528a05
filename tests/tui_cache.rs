//! The TUI on a cached store: shown from the cache, checked against its files afterwards,
//! changes re-read through the live-reload path, and the cache rewritten.
use std::path::Path;
use std::time::Duration;

use folio::app::App;
use folio::app::event::Event;
use folio::app::jobs::Source;
use folio::app::settings::config::{self, ColorChoice};
use folio::store::keep::cache::Cache;

fn open(store: &Path) -> App {
    let mut settings = config::load(None, ColorChoice::Never, false, None);
    settings.config.watch = false;
    let mut app = App::new(Source { path: Some(store.to_path_buf()), ..Source::default() }, settings, true);
    app.handle(Event::Resize(100, 30));
    app.settle(Duration::from_secs(60));
    app
}

#[test]
fn a_cached_store_opens_at_once_then_takes_in_what_changed_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("okf");
    // Three chunks of the cache's snapshot (2,048 entities each): its rewrite after a body edit
    // copies the two the edit is not in.
    folio_gen::generate(folio::store::dialect::okf::KIND, 4500, 3, &store).unwrap();
    // Written an hour ago, as a real store would be (recent files are always re-read).
    let then = std::time::SystemTime::now() - Duration::from_secs(3600);
    for e in ignore::Walk::new(&store).flatten().filter(|e| e.file_type().is_some_and(|t| t.is_file())) {
        std::fs::File::options().write(true).open(e.path()).unwrap().set_modified(then).unwrap();
    }
    let cache_dir = dir.path().join("cache");
    // This test binary holds this one test: nothing else reads the variable concurrently.
    unsafe { std::env::set_var("FOLIO_CACHE_DIR", &cache_dir) };

    let first = open(&store);
    let s = first.model.store.clone().unwrap();
    assert!(!s.from_cache, "no cache yet: read from the files");
    // The lint pass kept what it computed in the lint memo, and a pass that recalls it (as
    // `folio lint` does on an unchanged store) reports the same findings.
    let memo_file = Cache::new(&cache_dir).side_file(&s.root, s.kind(), folio::store::keep::cache::LINT_EXT);
    assert!(memo_file.exists(), "the TUI's lint pass wrote the lint memo");
    let shown = first.model.lint.clone().expect("linted");
    let recalled = folio::store::lint::lint_remembering(
        &s,
        &folio::store::lint::LintConfig::load(&s.root, s.kind()).unwrap(),
        &|| panic!("an unchanged store's memo answers without profiles"),
        &folio::store::keep::cache::lint_memo::Memo::new(Some(&Cache::new(&cache_dir)), &s),
    );
    assert_eq!(recalled.findings, shown.findings);
    let victim =
        s.entities.iter().find(|e| e.path.contains('/') && !e.path.ends_with("index.md")).unwrap().path.clone();
    drop(first);
    let cache = Cache::new(&cache_dir);
    assert!(cache.load(&store, folio::store::dialect::okf::KIND, "t".into()).is_ok(), "the first open wrote the cache");

    let text = std::fs::read_to_string(store.join(&victim)).unwrap();
    std::fs::write(store.join(&victim), retitle(&text, "Changed while folio was closed")).unwrap();
    let app = open(&store);
    let s = app.model.store.clone().unwrap();
    let i = s.entities.iter().position(|e| e.path == victim).unwrap();
    assert_eq!(s.entities[i].title, "Changed while folio was closed", "the check re-read the changed file");
    assert!(!app.model.refreshing);
    let recached = cache.load(&store, folio::store::dialect::okf::KIND, "t".into()).unwrap();
    let j = recached.entities.iter().position(|e| e.path == victim).unwrap();
    assert_eq!(recached.entities[j].title, "Changed while folio was closed", "the cache was rewritten");
    drop(app);

    // A body edit in the last chunk, which moves no entity: the snapshot rewritten after the
    // re-read answers as the files do, entity by entity.
    let body = s.entities[s.entities.len() - 3].path.clone();
    let text = std::fs::read_to_string(store.join(&body)).unwrap();
    std::fs::write(store.join(&body), format!("{text}\nSee [the changed one]({}).\n", relative(&body, &victim)))
        .unwrap();
    std::fs::File::options().write(true).open(store.join(&body)).unwrap().set_modified(then).unwrap();
    let app = open(&store);
    assert!(!app.model.refreshing);
    drop(app);
    let recached = cache.load(&store, folio::store::dialect::okf::KIND, "t".into()).unwrap();
    let truth = folio::store::Store::load(&store, folio::store::dialect::okf::KIND, "t".into());
    let show = |s: &folio::store::Store| s.entities.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>();
    assert_eq!(show(&recached), show(&truth), "the rewritten snapshot holds the store as it is");
    let k = truth.entities.iter().position(|e| e.path == body).unwrap();
    assert!(truth.entities[k].links.iter().any(|l| l.entity() == Some(i as u32)), "the new link resolves");

    // Every file rewritten since the snapshot (a checkout of another branch, a formatter): the
    // store is read from its files, not shown stale and then patched file by file — which
    // announced every file as reloaded — and the cache is written anew.
    let later = then + Duration::from_secs(600);
    let files: Vec<_> = ignore::Walk::new(&store)
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .collect();
    for (n, path) in files.iter().enumerate() {
        if n % 100 == 0 && path.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(path).unwrap();
            if text.contains("\ntitle: ") {
                std::fs::write(path, retitle(&text, &format!("Rewritten {n}"))).unwrap();
            }
        }
        std::fs::File::options().write(true).open(path).unwrap().set_modified(later).unwrap();
    }
    let app = open(&store);
    let s = app.model.store.clone().unwrap();
    assert!(!app.model.refreshing);
    let said = app.model.message.as_ref().map(|m| m.text.clone()).unwrap_or_default();
    assert!(!said.contains("reloaded"), "read whole, nothing reloaded file by file: {said:?}");
    let truth = folio::store::Store::load(&store, folio::store::dialect::okf::KIND, "t".into());
    assert!(truth.entities.iter().any(|e| e.title.starts_with("Rewritten ")), "titles were rewritten");
    assert_eq!(show(&s), show(&truth), "the store as its files are now");
    drop(app);
    let recached = cache.load(&store, folio::store::dialect::okf::KIND, "t".into()).unwrap();
    assert_eq!(show(&recached), show(&truth), "the cache written anew");
}

/// The path of `to` relative to the folder of `from` (both relative to the store root).
fn relative(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    format!("{}{to}", "../".repeat(depth))
}

/// The text with its frontmatter `title:` line replaced.
fn retitle(text: &str, title: &str) -> String {
    let mut done = false;
    let mut out = String::new();
    for line in text.lines() {
        if !done && line.starts_with("title: ") {
            out.push_str(&format!("title: {title}"));
            done = true;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert!(done, "no title line");
    out
}
