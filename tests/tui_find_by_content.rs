//! Recall in the TUI searches bodies too: text hits ranked with the fuzzy fields, each with its
//! matching line; the index is built as a background job and kept current on live reload.
mod common;
mod tui_support;

use folio::app::App;
use folio::app::event::Event;
use tui_support::*;

fn result_ids(app: &App) -> Vec<String> {
    let store = app.model.store.clone().unwrap();
    let engine = app.model.recall.as_ref().expect("recall engine");
    engine.results(0, 50).into_iter().map(|(h, _, _)| store.entity(h.idx).id.clone()).collect()
}

#[test]
fn pillow_ranks_the_pillow_guideline_first_with_its_line_highlighted() {
    let (_tmp, root) = common::scratch(&corpus("evolve/public-repo-vinodmut"));
    let mut app = app_on(&root, "dark", (120, 35));
    assert!(app.model.text_index.is_none(), "the index is built when recall first opens, not on load");
    press(&mut app, &["/"]);
    assert!(app.model.text_index.is_some());
    type_text(&mut app, "pillow");
    let engine = app.model.recall.as_ref().unwrap();
    assert!(engine.text_mode());
    let pillow = "guideline/when-extracting-image-exif-metadata-in-this-sandbox";
    let ids = result_ids(&app);
    assert_eq!(ids[0], pillow, "{ids:?}");
    // The same ranking as `folio recall --text`.
    let store = app.model.store.clone().unwrap();
    let index = folio::recall::text::TextRecall::build(&store);
    let headless: Vec<String> = index
        .search(&store, &folio::recall::Query::parse("pillow"), &[], 50)
        .iter()
        .map(|h| store.entity(h.idx).id.clone())
        .collect();
    assert_eq!(ids, headless);
    let first = engine.get(0).unwrap();
    let lines = engine.match_lines(first.idx);
    assert_eq!(lines[0].line, 10);
    let marked: Vec<&str> = lines[0].marks.iter().map(|m| &lines[0].text[m.clone()]).collect();
    assert_eq!(marked, ["Pillow", "Pillow"]);
    let buf = render(&app);
    let screen = text(&buf);
    assert!(screen.contains("Recall · entities + bodies"), "{screen}");
    assert!(screen.contains("in the body"), "the preview lists the matching lines: {screen}");
    // The query's words are highlighted in the shown line: find "Pillow" on the row under the
    // first result and check it is styled apart from the text before it.
    let row = screen.lines().position(|l| l.contains("pip install Pillow") || l.contains("PIL/Pillow")).unwrap();
    let line: String = screen.lines().nth(row).unwrap().to_string();
    let col = line.find("Pillow").map(|b| line[..b].chars().count()).unwrap() as u16;
    let (word, before) = (&buf[(col, row as u16)], &buf[(col.saturating_sub(2), row as u16)]);
    assert_ne!(word.style(), before.style(), "the word is highlighted");
    insta::assert_snapshot!("recall_text_pillow_120x35", screen);
}

#[test]
fn live_reload_reindexes_changed_entities() {
    let (_tmp, root) = common::scratch(&corpus("okf-v0.2/acme_retail"));
    let mut app = app_on(&root, "dark", (100, 30));
    press(&mut app, &["/"]);
    type_text(&mut app, "zanzibarite");
    assert_eq!(app.model.recall.as_ref().unwrap().matched(), 0);
    let before = app.model.text_index.clone().unwrap();
    // A body gains a word the store never held, another loses "cogs" wherever it had it.
    let path = root.join("metrics/revenue.md");
    let body = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{body}\nShipped to zanzibarite customers.\n")).unwrap();
    app.handle(Event::FilesChanged(vec![path]));
    app.settle(std::time::Duration::from_secs(10));
    let (store, index) = app.model.text_index.clone().unwrap();
    assert!(std::sync::Arc::ptr_eq(&store, app.model.store.as_ref().unwrap()), "the index follows the new store");
    assert!(!std::sync::Arc::ptr_eq(&index, &before.1));
    assert_eq!(result_ids(&app), ["metrics/revenue"], "the open query sees the new word");
    assert!(text(&render(&app)).contains("zanzibarite customers"));
    // The updated index equals one built from scratch on the new store.
    let fresh = folio::recall::text::TextRecall::build(&store);
    for word in ["zanzibarite", "margin", "revenue", "refunds"] {
        assert_eq!(index.index.postings(word), fresh.index.postings(word), "{word}");
    }
    assert_eq!(index.index.len(), fresh.index.len());
    assert!((index.index.average_length() - fresh.index.average_length()).abs() < 1e-3);
}
