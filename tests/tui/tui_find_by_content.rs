//! Recall in the TUI searches bodies too: text hits ranked with the fuzzy fields, each with its
//! matching line; the index is built as a background job and kept current on live reload.

use crate::support;
use folio::app::App;
use folio::app::event::Event;
use folio::app::lint::{LintRow, rows};
use folio::app::model::Overlay;
use support::tui::*;

fn result_ids(app: &App) -> Vec<String> {
    let store = app.model.store.clone().unwrap();
    let engine = app.model.recall.as_ref().expect("recall engine");
    engine.results(0, 50).into_iter().map(|(h, _, _)| store.entity(h.idx).id.clone()).collect()
}

#[test]
fn pillow_ranks_the_pillow_guideline_first_with_its_line_highlighted() {
    let Some(repo) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    let (_tmp, root) = support::scratch(&repo);
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
    // The same ranking as `folio recall --text` (the last word as typed: a prefix too).
    let store = app.model.store.clone().unwrap();
    let index = folio::recall::text::TextRecall::build(&store);
    let headless: Vec<String> = index
        .search_as_typed(&store, &folio::recall::Query::parse("pillow"), &[], 50)
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
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
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

/// Move the lint panel's cursor onto the possible contradiction found on `path`.
fn select_candidate(app: &mut App, path: &str) {
    let (store, report) = (app.model.store.clone().unwrap(), app.model.lint.clone().unwrap());
    let i = report
        .findings
        .iter()
        .position(|f| f.rule == "possible-contradiction" && f.path.as_deref() == Some(path))
        .unwrap_or_else(|| panic!("no candidate on {path}"));
    let at = rows(&app.model.lint_view, &store, &report).iter().position(|r| *r == LintRow::Finding(i)).unwrap();
    press(app, &["g", "g"]);
    for _ in 0..at {
        press(app, &["j"]);
    }
}

fn candidates(app: &App) -> Vec<String> {
    let report = app.model.lint.clone().unwrap();
    let mut paths: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.rule == "possible-contradiction")
        .filter_map(|f| f.path.as_deref().map(str::to_string))
        .collect();
    paths.sort();
    paths
}

/// The concept text of the possible-contradiction tests: a shared lesson plus `sentence`.
fn contradiction_concept(name: &str, sentence: &str) -> String {
    let lesson = format!(
        "Parsing the {name}zorvex telemetry export needs the {name}quandrel schema and the {name}brimstale reader. The {name}morvane pipeline reads those frames nightly."
    );
    format!(
        "---\ntype: Metric\ntitle: {name}\ndescription: {name} lesson\nstatus: stable\n---\n\n{lesson} {sentence}\n"
    )
}

/// In the lint panel, `C` on a possible contradiction shows the confirm dialog with the
/// `contradicts` diff on both concepts and writes it on `y`; `i` on one asks why and dismisses
/// that pair alone.
#[test]
fn lint_panel_confirms_or_dismisses_a_possible_contradiction() {
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
    let concept = contradiction_concept;
    let w = |rel: &str, text: String| std::fs::write(root.join(rel), text).unwrap();
    w("metrics/use-a.md", concept("use", "Always use ripgrep for the search."));
    w("metrics/use-b.md", concept("use", "Never use ripgrep for the search."));
    w("metrics/timeout-a.md", concept("timeout", "The request timeout is 30 seconds."));
    w("metrics/timeout-b.md", concept("timeout", "The request timeout is 90 seconds."));
    let mut app = app_on(&root, "dark", (120, 40));
    app.model.review.actor = "human:t".into();
    press(&mut app, &["4"]);
    assert_eq!(candidates(&app).len(), 4);

    select_candidate(&mut app, "metrics/use-a.md");
    press(&mut app, &["C"]);
    let confirm = app.model.review.confirm.as_ref().expect("the confirm dialog");
    let dialog = confirm.lines.join("\n");
    assert!(dialog.contains("+contradicts") && dialog.contains("metrics/use-b"), "{dialog}");
    press(&mut app, &["y"]);
    let a = std::fs::read_to_string(root.join("metrics/use-a.md")).unwrap();
    assert!(a.contains("contradicts:") && a.contains("metrics/use-b"), "{a}");
    app.handle(Event::FilesChanged(vec![root.join("metrics/use-a.md"), root.join("metrics/use-b.md")]));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(candidates(&app), ["metrics/timeout-a.md", "metrics/timeout-b.md"]);

    select_candidate(&mut app, "metrics/timeout-a.md");
    press(&mut app, &["i"]);
    assert!(matches!(
        app.model.overlays.last(),
        Some(Overlay::Reason { rule: "possible-contradiction", other: Some(o), .. }) if o == "metrics/timeout-b"
    ));
    assert!(
        text(&render(&app)).contains("Dismiss possible-contradiction between metrics/timeout-a and metrics/timeout-b")
    );
    type_text(&mut app, "units differ");
    press(&mut app, &["<Enter>"]);
    let config = std::fs::read_to_string(root.join(".folio/config.toml")).unwrap();
    assert!(config.contains("other = \"metrics/timeout-b\""), "{config}");
    assert!(candidates(&app).is_empty(), "the dismissed pair is gone, never shown again");
    let report = app.model.lint.clone().unwrap();
    assert!(report.suppressed.is_empty(), "a dismissal drops the pair, it does not hide the rule on the entity");
}

/// In the inbox an item whose reason is a possible contradiction is decided with the lint
/// panel's keys: `C` shows the `contradicts` diff and writes it on `y`; `i` asks why and
/// dismisses the pair, and the reason leaves the queue.
#[test]
fn inbox_confirms_or_dismisses_a_possible_contradiction() {
    let (_tmp, root) = support::scratch(&corpus("okf-v0.2/acme_retail"));
    let w = |rel: &str, text: String| std::fs::write(root.join(rel), text).unwrap();
    w("metrics/use-a.md", contradiction_concept("use", "Always use ripgrep for the search."));
    w("metrics/use-b.md", contradiction_concept("use", "Never use ripgrep for the search."));
    w("metrics/timeout-a.md", contradiction_concept("timeout", "The request timeout is 30 seconds."));
    w("metrics/timeout-b.md", contradiction_concept("timeout", "The request timeout is 90 seconds."));
    let mut app = support::tui::inbox::open(&root, (140, 45));
    let possible = |app: &folio::app::App, id: &str| {
        let item = app.model.review.items.iter().find(|i| i.id == id).expect("queued");
        item.reasons.contains(&folio::store::review::queue::Reason::PossibleContradiction)
    };
    for id in ["metrics/use-a", "metrics/use-b", "metrics/timeout-a", "metrics/timeout-b"] {
        assert!(possible(&app, id), "{id}");
    }
    assert!(!possible(&app, "skills/run-on-bq"), "an ordinary concept is no candidate");

    // `C` on an item that is no candidate says so and writes nothing.
    support::tui::inbox::go_to(&mut app, "skills/run-on-bq");
    press(&mut app, &["C"]);
    assert!(app.model.review.confirm.is_none());
    assert!(text(&render(&app)).contains("this item is not one"));

    support::tui::inbox::go_to(&mut app, "metrics/use-a");
    press(&mut app, &["C"]);
    let confirm = app.model.review.confirm.as_ref().expect("the confirm dialog");
    let dialog = confirm.lines.join("\n");
    assert!(dialog.contains("+contradicts") && dialog.contains("metrics/use-b"), "{dialog}");
    press(&mut app, &["y"]);
    let a = std::fs::read_to_string(root.join("metrics/use-a.md")).unwrap();
    assert!(a.contains("contradicts:") && a.contains("metrics/use-b"), "{a}");
    app.handle(Event::FilesChanged(vec![root.join("metrics/use-a.md"), root.join("metrics/use-b.md")]));
    app.settle(std::time::Duration::from_secs(10));
    let gone =
        |app: &folio::app::App, id: &str| app.model.review.items.iter().all(|i| i.id != id) || !possible(app, id);
    assert!(gone(&app, "metrics/use-b"), "a confirmed pair is no longer a candidate");

    support::tui::inbox::go_to(&mut app, "metrics/timeout-b");
    press(&mut app, &["i"]);
    assert!(matches!(
        app.model.overlays.last(),
        Some(Overlay::Reason { rule: "possible-contradiction", other: Some(o), .. }) if o == "metrics/timeout-a"
    ));
    assert!(
        text(&render(&app)).contains("Dismiss possible-contradiction between metrics/timeout-b and metrics/timeout-a")
    );
    type_text(&mut app, "units differ");
    press(&mut app, &["<Enter>"]);
    app.settle(std::time::Duration::from_secs(10));
    let config = std::fs::read_to_string(root.join(".folio/config.toml")).unwrap();
    assert!(config.contains("other = \"metrics/timeout-a\""), "{config}");
    assert!(gone(&app, "metrics/timeout-a") && gone(&app, "metrics/timeout-b"), "never shown again");
}

/// The inbox shows a near-duplicate beside its pair with the words both say highlighted, and
/// `m` offers the pair first: `m`, Enter opens the merge editor into it.
#[test]
fn inbox_shows_a_near_duplicate_side_by_side_and_merges_into_it_in_two_keys() {
    let Some(repo) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    let (_tmp, root) = support::scratch(&repo);
    let mut app = support::tui::inbox::open(&root, (140, 45));
    let pillow = "guideline/when-extracting-image-exif-metadata-in-this-sandbox";
    let other = "guideline/in-this-workspace-environment-skip-directly-to-python";
    support::tui::inbox::go_to(&mut app, pillow);
    let store = app.model.store.clone().unwrap();
    let item = app.model.review.selected().unwrap();
    assert_eq!(item.duplicate_of.map(|d| store.entity(d).id.clone()).as_deref(), Some(other));
    let detail = app.model.review.detail.as_ref().expect("the detail is read");
    let dup = detail.duplicate.as_ref().expect("the pair side by side");
    assert_eq!(dup.id, other);
    assert!(dup.shared.contains("exif") && !dup.shared.contains("the"), "{:?}", dup.shared);
    let buf = render(&app);
    let screen = text(&buf);
    assert!(screen.contains("Near-duplicate of guideline/in-this-workspace"), "{screen}");
    // "EXIF" in the right-hand pane is highlighted, the space before it is not.
    let (row, line) = screen.lines().enumerate().find(|(_, l)| l.matches("EXIF").count() >= 2).expect("both sides");
    let col = line.rfind("EXIF").map(|b| line[..b].chars().count()).unwrap() as u16;
    assert_ne!(buf[(col, row as u16)].style(), buf[(col - 1, row as u16)].style(), "{line}");
    insta::assert_snapshot!("inbox_near_duplicate_140x45", support::tui::inbox::masked(&screen));

    press(&mut app, &["m"]);
    let picker = app.model.review.picker.as_ref().unwrap();
    assert_eq!(picker.hits.iter().map(|&h| store.entity(h).id.clone()).collect::<Vec<_>>(), [other]);
    press(&mut app, &["<Enter>"]);
    let ed = app.model.editor.as_ref().expect("the merge editor");
    assert!(ed.is_merge());
}
