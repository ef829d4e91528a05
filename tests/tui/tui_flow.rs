//! App flows: key events through the real keymap, asserting the model and the rendered screen.
use crate::support;
use folio::app::event::Event;
use folio::app::model::{Pane, Row};
use support::tui::*;

fn open_id(app: &folio::app::App) -> String {
    app.model.preview.as_ref().map(|p| p.id.clone()).unwrap_or_default()
}

#[test]
fn follow_links_back_and_forward() {
    let (_dir, root) = tricky_vault();
    let mut app = app_on(&root, "dark", (100, 30));
    assert_eq!(open_id(&app), "notes/alpha", "the first entity is previewed at start");
    press(&mut app, &["n"]);
    assert_eq!(app.model.focus, Pane::Preview);
    assert_eq!(app.model.preview.as_ref().unwrap().link, Some(0));
    press(&mut app, &["<Enter>"]);
    assert_eq!(open_id(&app), "notes/beta");
    assert!(text(&render(&app)).contains("Back to alpha."));
    press(&mut app, &["h"]);
    assert_eq!(open_id(&app), "notes/alpha");
    press(&mut app, &["l"]);
    assert_eq!(open_id(&app), "notes/beta");
    press(&mut app, &["<Backspace>"]);
    // The second link of alpha is broken: following it says so and stays.
    press(&mut app, &["n", "n", "<Enter>"]);
    assert_eq!(open_id(&app), "notes/alpha");
    let msg = app.model.message.clone().unwrap();
    assert!(msg.warn && msg.text == "broken link: missing-page", "{msg:?}");
    assert!(text(&render(&app)).contains("broken link: missing-page"));
}

#[test]
fn yank_reports_what_was_copied() {
    let (_dir, root) = tricky_vault();
    let mut app = app_on(&root, "dark", (100, 30));
    press(&mut app, &["y"]);
    assert_eq!(app.runner.copied, vec!["notes/alpha".to_string()]);
    assert!(text(&render(&app)).contains("copied id notes/alpha"));
    press(&mut app, &["<A-y>"]);
    assert_eq!(app.runner.copied.last().unwrap(), "[[notes/alpha]]");
    press(&mut app, &["Y"]);
    assert!(app.runner.copied.last().unwrap().ends_with("tricky-vault/notes/alpha.md"));
}

#[test]
fn filter_sort_collapse_and_focus() {
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (100, 30));
    let entities = |app: &folio::app::App| app.model.rows.iter().filter(|r| matches!(r, Row::Entity { .. })).count();
    assert_eq!(entities(&app), 9);
    press(&mut app, &["f"]);
    assert_eq!(app.model.mode(), "FILTER");
    type_text(&mut app, "margin");
    press(&mut app, &["<Enter>"]);
    let store = app.model.store.clone().unwrap();
    let shown: Vec<String> = app
        .model
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Entity { idx, .. } => Some(store.entity(*idx).id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert!(shown.iter().all(|id| id.contains("margin")), "{shown:?}");
    assert!(text(&render(&app)).contains("filter: margin"));
    press(&mut app, &["<Backspace>"]);
    assert_eq!(entities(&app), 9);
    // Collapse the group of the selected entity: h goes to the parent, h again closes it.
    press(&mut app, &["g", "g"]);
    assert_eq!(app.model.cursor, 0);
    let before = app.model.rows.len();
    press(&mut app, &["h"]);
    assert_eq!(app.model.rows.len(), before - 2, "computations folds its two entities");
    press(&mut app, &["l"]);
    assert_eq!(app.model.rows.len(), before);
    press(&mut app, &["G"]);
    assert_eq!(app.model.cursor, before - 1);
    press(&mut app, &["<Tab>"]);
    assert_eq!(app.model.focus, Pane::Preview);
    press(&mut app, &["1"]);
    assert_eq!(app.model.focus, Pane::Tree);
    press(&mut app, &["s"]);
    assert_eq!(app.model.filter.sort.name(), "id");
}

#[test]
fn palette_runs_actions_and_help_filters() {
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (100, 30));
    press(&mut app, &[":"]);
    type_text(&mut app, "switch dark light");
    press(&mut app, &["<Enter>"]);
    assert!(app.model.overlays.is_empty());
    assert_eq!(app.model.theme.name, "light");
    press(&mut app, &["?"]);
    type_text(&mut app, "mouse");
    let screen = text(&render(&app));
    assert!(screen.contains("Toggle the mouse"), "{screen}");
    assert!(!screen.contains("Next row"));
    press(&mut app, &["<Enter>"]);
    assert!(!app.model.mouse, "Enter in help runs the selected binding");
    press(&mut app, &["q"]);
    assert!(app.model.quit);
}

#[test]
fn live_reload_keeps_selection_and_reports_deletion() {
    let (_dir, root) = tricky_vault();
    let mut app = app_on(&root, "dark", (100, 30));
    press(&mut app, &["j"]);
    assert_eq!(open_id(&app), "notes/beta");
    press(&mut app, &["<Tab>", "j"]);
    let scroll = app.model.preview.as_ref().unwrap().scroll;
    write(&root, "notes/beta.md", "---\ntitle: Beta\ntype: note\n---\n# Beta\n\nRewritten by an agent.\n");
    write(&root, "notes/gamma.md", "# Gamma\n");
    app.handle(Event::FilesChanged(vec![root.join("notes/beta.md"), root.join("notes/gamma.md")]));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(open_id(&app), "notes/beta");
    assert_eq!(app.model.preview.as_ref().unwrap().scroll, scroll);
    assert!(text(&render(&app)).contains("Rewritten by an agent."));
    assert_eq!(app.model.store.as_ref().unwrap().entities.len(), 4);
    // The selection stays on Beta although Gamma was inserted after it.
    let Some(Row::Entity { idx, .. }) = app.model.selected_row() else { panic!("an entity row") };
    assert_eq!(app.model.store.as_ref().unwrap().entity(*idx).id, "notes/beta");

    std::fs::remove_file(root.join("notes/beta.md")).unwrap();
    app.handle(Event::FilesChanged(vec![root.join("notes/beta.md")]));
    app.settle(std::time::Duration::from_secs(10));
    let p = app.model.preview.as_ref().unwrap();
    assert_eq!((p.id.as_str(), p.idx), ("notes/beta", None));
    let screen = text(&render(&app));
    assert!(screen.contains("was deleted on disk"), "{screen}");
    assert!(screen.contains("Rewritten by an agent."), "the last content stays readable");
}

#[test]
fn user_keymap_overrides_apply() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keymap.toml"), "[[catalog]]\non = \"x\"\nrun = \"bottom\"\n").unwrap();
    let settings = folio::app::settings::config::load(
        Some(dir.path()),
        folio::app::settings::config::ColorChoice::Auto,
        false,
        None,
    );
    assert!(settings.warnings.is_empty());
    let source = folio::app::jobs::Source { path: Some(corpus("okf-v0.2/acme_retail")), ..Default::default() };
    let mut app = folio::app::App::new(source, settings, true);
    app.handle(Event::Resize(100, 30));
    app.settle(std::time::Duration::from_secs(10));
    press(&mut app, &["x"]);
    assert_eq!(app.model.cursor, app.model.rows.len() - 1);
}

#[test]
fn mouse_click_selects_and_wheel_scrolls() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (100, 30));
    let click = |kind, column, row| Event::Mouse(MouseEvent { kind, column, row, modifiers: KeyModifiers::empty() });
    // Row 2 of the tree (screen row 4: border, filter line, rows from 2).
    app.handle(click(MouseEventKind::Down(MouseButton::Left), 5, 4));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(app.model.cursor, 2);
    app.handle(click(MouseEventKind::ScrollDown, 60, 10));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(app.model.preview.as_ref().unwrap().scroll, 3);
    press(&mut app, &["M"]);
    app.handle(click(MouseEventKind::ScrollDown, 60, 10));
    assert_eq!(app.model.preview.as_ref().unwrap().scroll, 3, "mouse off: wheel ignored");
}

#[test]
fn links_to_a_heading_or_block_open_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    write(
        &root,
        "alpha.md",
        "# Alpha\n\nSee [[beta#6. /wiki-ingest Vision Support]], [[beta#^quote-1]], [[#Here]] and [[beta#Nowhere]].\n\n## Here\n\nDone.\n",
    );
    let filler = |word: &str| (1..=60).map(|i| format!("{word} paragraph {i}.\n\n")).collect::<String>();
    let (early, late) = (filler("Early"), filler("Late"));
    write(
        &root,
        "beta.md",
        format!(
            "# Beta\n\n{early}## 6. /wiki-ingest Vision Support\n\nVision text.\n\n{late}A quoted claim. ^quote-1\n\nTail.\n"
        ),
    );
    let mut app = app_on(&root, "dark", (100, 30));
    assert_eq!(open_id(&app), "alpha");
    press(&mut app, &["n", "<Enter>"]);
    assert_eq!(open_id(&app), "beta");
    let screen = text(&render(&app));
    assert!(screen.contains("## 6. /wiki-ingest Vision Support"), "the heading is on screen:\n{screen}");
    assert!(!screen.contains("Early paragraph 1."), "scrolled away from the top:\n{screen}");
    press(&mut app, &["h", "n", "n", "<Enter>"]);
    assert_eq!(open_id(&app), "beta");
    let screen = text(&render(&app));
    assert!(screen.contains("A quoted claim."), "the block is on screen:\n{screen}");
    assert!(!screen.contains("^quote-1"), "the block id is hidden as in Obsidian:\n{screen}");
    // A fragment naming this page's own heading scrolls within it.
    press(&mut app, &["h", "n", "n", "n", "<Enter>"]);
    assert_eq!(open_id(&app), "alpha");
    assert!(app.model.message.is_none() || !app.model.message.as_ref().unwrap().warn, "{:?}", app.model.message);
    // A heading that is not there: the page opens at its top and says so.
    press(&mut app, &["n", "<Enter>"]);
    assert_eq!(open_id(&app), "beta");
    let msg = app.model.message.clone().unwrap();
    assert!(msg.warn && msg.text.contains("no heading or block #Nowhere"), "{msg:?}");
    assert!(text(&render(&app)).contains("Early paragraph 1."));
}

#[test]
fn long_properties_wrap_and_k_shows_them_whole_for_y_to_copy() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    let long = "When running tests in a Python project that uses uv for dependency management (indicated by pyproject.toml with a uv.lock file) and many more words that go on past three rows of a narrow preview pane, to the very end";
    write(
        &root,
        "guide.md",
        format!("---\ntitle: Use `uv run pytest` instead of `python3 -m pytest`\ndescription: {long}\n---\nBody.\n"),
    );
    let mut app = app_on(&root, "dark", (80, 24));
    let screen = text(&render(&app));
    assert!(
        screen.contains("Use uv run pytest instead of python3"),
        "titles show code spans without backticks:\n{screen}"
    );
    assert!(!screen.contains("`uv run pytest`"), "{screen}");
    assert!(screen.contains("description When running tests"), "{screen}");
    assert!(screen.contains("…"), "a value longer than three rows ends in an ellipsis:\n{screen}");
    assert!(!screen.contains("very end"), "{screen}");
    press(&mut app, &["K"]);
    let screen = text(&render(&app));
    assert!(screen.contains("Properties"), "{screen}");
    assert!(screen.contains("very end"), "the overlay shows the value whole:\n{screen}");
    // id, path, description: the third property is the description.
    press(&mut app, &["j", "j", "y"]);
    assert_eq!(app.runner.copied.last().map(String::as_str), Some(long));
    assert!(text(&render(&app)).contains("copied description When running"));
    press(&mut app, &["q"]);
    assert!(app.model.overlays.is_empty(), "q closes the properties, it does not quit");
    assert!(!app.model.quit);
}

#[test]
fn the_sidebar_is_proportional_and_resizes_with_keys_and_a_border_drag() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let catalog_width = |app: &folio::app::App| {
        let screen = text(&render(app));
        let top = screen.lines().next().unwrap().to_string();
        top.chars().position(|c| c == '┐').unwrap() + 1
    };
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (200, 50));
    assert_eq!(catalog_width(&app), 60, "30 % of 200 columns, not a fixed width");
    press(&mut app, &[">", ">"]);
    assert_eq!(catalog_width(&app), 80);
    press(&mut app, &["<"]);
    assert_eq!(catalog_width(&app), 70);
    let mouse = |kind, column| Event::Mouse(MouseEvent { kind, column, row: 10, modifiers: KeyModifiers::empty() });
    // Press on the catalog's right border (column 69), drag it to column 99, let go.
    let cursor = app.model.cursor;
    app.handle(mouse(MouseEventKind::Down(MouseButton::Left), 69));
    app.handle(mouse(MouseEventKind::Drag(MouseButton::Left), 99));
    app.handle(mouse(MouseEventKind::Up(MouseButton::Left), 99));
    assert_eq!(catalog_width(&app), 100);
    assert_eq!(app.model.cursor, cursor, "a drag of the border selects nothing");
    for _ in 0..20 {
        press(&mut app, &["<"]);
    }
    assert_eq!(catalog_width(&app), 30, "at least 15 %");
}

/// Issue 41: in the review inbox `<`/`>` and a drag of its list's border size the list, and the
/// catalog's sidebar keeps its width.
#[test]
fn the_inbox_list_resizes_with_keys_and_a_border_drag_not_the_sidebar() {
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let list_width = |app: &folio::app::App| {
        let screen = text(&render(app));
        let top = screen.lines().next().unwrap().to_string();
        top.chars().position(|c| c == '┐').unwrap() + 1
    };
    let (_dir, root) = support::scratch(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    let mut app = support::tui::inbox::open(&root, (200, 50));
    let sidebar = app.model.sidebar;
    assert_eq!(list_width(&app), 80, "40 % of 200 columns");
    press(&mut app, &[">", ">"]);
    assert_eq!(list_width(&app), 100);
    press(&mut app, &["<"]);
    assert_eq!(list_width(&app), 90);
    assert_eq!(app.model.sidebar, sidebar, "the catalog's width is its own");
    let mouse = |kind, column| Event::Mouse(MouseEvent { kind, column, row: 10, modifiers: KeyModifiers::empty() });
    app.model.mouse = true;
    // Press on the list's right border (column 89), drag it to column 119, let go.
    let cursor = app.model.review.cursor;
    app.handle(mouse(MouseEventKind::Down(MouseButton::Left), 89));
    app.handle(mouse(MouseEventKind::Drag(MouseButton::Left), 119));
    app.handle(mouse(MouseEventKind::Up(MouseButton::Left), 119));
    assert_eq!(list_width(&app), 120);
    assert_eq!(app.model.review.cursor, cursor, "a drag of the border selects nothing");
    assert_eq!(app.model.sidebar, sidebar);
}

/// Typed and entered faster than the matcher answers (as a fast typist, or tmux, does): the
/// result of the query as typed opens once it is in; the Enter is neither dropped nor given a
/// result of the query before it.
#[test]
fn enter_right_after_typing_opens_the_result_of_the_query_as_typed() {
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (100, 30));
    // The matcher on its own threads, as on a terminal (tests otherwise run it inline).
    app.model.recall_synchronous = false;
    press(&mut app, &["/"]);
    app.settle(std::time::Duration::from_secs(10));
    for c in "revenue".chars() {
        app.handle(Event::Key(ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Char(c),
            ratatui::crossterm::event::KeyModifiers::empty(),
        )));
    }
    press(&mut app, &["<Enter>"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while app.model.overlays.last().is_some() && std::time::Instant::now() < deadline {
        app.wait(std::time::Duration::from_millis(20));
    }
    assert!(app.model.overlays.is_empty(), "the Enter was lost: the overlay is still open");
    app.settle(std::time::Duration::from_secs(10));
    let id = open_id(&app);
    assert!(id.contains("revenue"), "opened {id:?}, not a result of `revenue`");
}

/// Typing a filter builds its tree in the background, one build at a time: a key pressed
/// while one is under way waits for it; a tree built for a filter since changed is not shown,
/// and the next build is for the filter as it is then.
#[test]
fn the_filters_tree_is_built_in_the_background_one_build_at_a_time() {
    use folio::app::jobs::Job;
    use folio::app::tree::built::BuiltTree;
    use folio::app::tree::update::{built_tree, refilter};
    use folio::store::read::tree::{TreeFilter, build};

    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (100, 30));
    let store = app.model.store.clone().unwrap();
    let all = app.model.rows.len();
    let model = &mut app.model;
    model.filter.query = "m".into();
    model.refilter = true;
    let jobs = refilter(model);
    assert!(matches!(jobs.as_slice(), [Job::BuildTree(_, f)] if f.query == "m"), "one build for `m`");
    assert_eq!(model.rows.len(), all, "the last tree is shown meanwhile");
    model.filter.query = "margin".into();
    model.refilter = true;
    assert!(refilter(model).is_empty(), "no second build while one is under way");
    // The build for `m` arrives: not shown (the filter is `margin` now); `margin`'s follows.
    let m = TreeFilter { query: "m".into(), ..TreeFilter::default() };
    let jobs = built_tree(model, &store, BuiltTree { tree: build(&store, &m), filter: m });
    assert_eq!(model.rows.len(), all, "a tree for a filter since changed is not shown");
    assert!(matches!(jobs.as_slice(), [Job::BuildTree(_, f)] if f.query == "margin"), "then one for `margin`");
    // A refresh that re-read only bodies lands meanwhile (another store, the same tree): the
    // build for `margin`, made of the store before it, is still the one to show.
    let (reread, _) = store.refreshed(&[store.abs_path(&store.entities[0].path)]);
    model.store = Some(std::sync::Arc::new(reread));
    let margin = TreeFilter { query: "margin".into(), ..TreeFilter::default() };
    let jobs = built_tree(model, &store, BuiltTree { tree: build(&store, &margin), filter: margin });
    assert!(jobs.is_empty());
    let shown = model.rows.iter().filter(|r| matches!(r, Row::Entity { .. })).count();
    assert_eq!(shown, 4, "the tree for `margin` is shown");
}
