//! The history pane (issue 20) through the real keymap: `5` opens the open entity's versions,
//! read by a worker; the selected version's word diff shows below; `m` marks one to compare
//! with; `b` shows the blame, in the pane and from the preview; a change on disk is a new
//! version once the store is re-read. The repository is built with the real `git` (skipped
//! where it is missing); folio reads it with gitoxide.
use crate::support;
use crate::support::git as git_support;

use std::path::Path;

use folio::app::event::Event;
use folio::app::model::Pane;
use folio::store::history::Source;
use support::tui::*;

fn git(dir: &Path, who: &str, date: &str, args: &[&str]) {
    git_support::run_as(dir, who, date, args);
}

/// The store as a repository whose first commit, by Ann, holds everything written so far.
fn first_commit(root: &Path) {
    for args in [&["init", "-q", "-b", "main"][..], &["add", "-A"], &["commit", "-q", "-m", "first"]] {
        git(root, "Ann", "2026-01-01T10:00:00Z", args);
    }
}

/// Skip (loudly) where git is missing; CI machines have it.
/// `store/notes/alpha.md` ("One.") in `dir`, committed once; the store's path.
fn alpha_committed(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("store");
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nOne.\n");
    first_commit(&root);
    root
}

fn no_git() -> bool {
    let missing = !git_support::available();
    if missing {
        eprintln!("SKIPPED: the `git` binary is not installed; this test builds its repository with it");
    }
    missing
}

#[test]
fn the_history_pane_lists_versions_diffs_and_blames() {
    if no_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("store");
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nRun the backup at 01:00.\n");
    first_commit(&root);
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nRun the backup at 02:30.\nMail on failure.\n");
    git(&root, "Bob", "2026-01-02T10:00:00Z", &["commit", "-q", "-am", "later, and mail"]);
    let mut app = app_on(&root, "dark", (110, 30));
    app.model.review.actor = "human:tester".into();
    assert_eq!(app.model.preview.as_ref().map(|p| p.id.as_str()), Some("notes/alpha"));
    press(&mut app, &["5"]);
    assert_eq!((app.model.focus, app.model.main), (Pane::History, Pane::History));
    let data = app.model.history.data.clone().expect("read by the worker").expect("no error");
    let revs: Vec<&str> = data.history.versions.iter().map(|v| v.rev.as_str()).collect();
    assert_eq!(revs.len(), 2, "{revs:?}");
    let screen = text(&render(&app));
    assert!(screen.contains("5 History: notes/alpha"), "{screen}");
    assert!(screen.contains(&format!("{:8} 2026-01-02 Bob", revs[0])), "{screen}");
    assert!(screen.contains("Ann"), "{screen}");
    // The newest version's diff against the one before it.
    assert!(screen.contains(&format!("{} → {}", revs[1], revs[0])), "{screen}");
    assert!(screen.contains("02:30.") && screen.contains("Mail on failure."), "{screen}");
    // Line by line, numbered, the changed words within a changed line marked (reversed).
    assert!(screen.contains("   4      - Run the backup at 01:00."), "{screen}");
    assert!(screen.contains("        4 + Run the backup at 02:30."), "{screen}");
    assert!(screen.contains("        5 + Mail on failure."), "{screen}");
    let buf = render(&app);
    let (y, row) = screen.lines().enumerate().find(|(_, l)| l.contains("4 + Run the backup")).unwrap();
    let col = |word: &str| row[..row.find(word).unwrap()].chars().count() as u16;
    let reversed = |x: u16| buf[(x, y as u16)].modifier.contains(ratatui::style::Modifier::REVERSED);
    assert!(reversed(col("02:30")) && !reversed(col("Run the")), "only the changed words are marked");
    // The oldest compares with nothing; marked, the newest is compared with it instead.
    press(&mut app, &["j"]);
    assert!(text(&render(&app)).contains(&format!("nothing → {}", revs[1])));
    press(&mut app, &["m", "k"]);
    assert_eq!(app.model.history.marked, Some(1));
    assert!(text(&render(&app)).contains(&format!("{} → {}", revs[1], revs[0])));
    // Blame: each line with the version that brought it.
    press(&mut app, &["b"]);
    assert!(app.model.history.blame);
    let screen = text(&render(&app));
    assert!(screen.contains("5 Blame: notes/alpha"), "{screen}");
    let line = screen.lines().find(|l| l.contains("Run the backup at 02:30.")).expect("blamed line");
    assert!(line.contains(revs[0]) && line.contains("Bob"), "{line}");
    let line = screen.lines().find(|l| l.contains("title: Alpha")).expect("blamed line");
    assert!(line.contains(revs[1]) && line.contains("Ann"), "{line}");
    // Esc goes back to the preview; `b` there opens the blame straight away.
    press(&mut app, &["<Esc>", "b"]);
    assert!(app.model.history.blame);
    assert_eq!(app.model.main, Pane::History);
    // An edit on disk is a new version once the store is re-read.
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nRun the backup at 03:00.\nMail on failure.\n");
    app.handle(Event::FilesChanged(vec![root.join("notes/alpha.md")]));
    app.settle(std::time::Duration::from_secs(10));
    let data = app.model.history.data.clone().unwrap().unwrap();
    assert_eq!(data.history.versions[0].source, Source::Worktree);
    assert_eq!(data.history.versions.len(), 3);
    let screen = text(&render(&app));
    let line = screen.lines().find(|l| l.contains("03:00.")).expect("blamed line");
    assert!(line.contains("worktree"), "{line}");
    // `r` on the oldest version: the diff first, written on a yes, undone by `u`.
    let before = std::fs::read(root.join("notes/alpha.md")).unwrap();
    press(&mut app, &["b", "G", "r"]);
    let screen = text(&render(&app));
    assert!(screen.contains(&format!("Restore notes/alpha.md to version {}?", revs[1])), "{screen}");
    assert!(screen.contains("+Run the backup at 01:00."), "{screen}");
    assert_eq!(std::fs::read(root.join("notes/alpha.md")).unwrap(), before, "nothing written before the yes");
    press(&mut app, &["y"]);
    assert_eq!(
        std::fs::read_to_string(root.join("notes/alpha.md")).unwrap(),
        "---\ntitle: Alpha\n---\nRun the backup at 01:00.\n"
    );
    let data = app.model.history.data.clone().unwrap().unwrap();
    let event = data.history.versions.iter().find(|v| v.kind.as_deref() == Some("restore")).expect("logged");
    assert_eq!(event.author.as_deref(), Some("human:tester"));
    // The uncommitted change the restore made is the restorer's (folio's journal says so).
    assert_eq!(data.history.versions[0].source, Source::Worktree);
    assert_eq!(data.history.versions[0].author.as_deref(), Some("human:tester"));
    press(&mut app, &["u"]);
    assert_eq!(app.model.mode(), "CONFIRM");
    press(&mut app, &["y"]);
    assert_eq!(std::fs::read(root.join("notes/alpha.md")).unwrap(), before, "undo brings the bytes back");
}

#[test]
fn the_history_pane_shows_the_versions_as_the_worker_finds_them() {
    if no_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = alpha_committed(t.path());
    for (day, body) in [(2, "Two.\n"), (3, "Three.\n")] {
        write(&root, "notes/alpha.md", format!("---\ntitle: Alpha\n---\nOne.\n{body}"));
        git(&root, "Bob", &format!("2026-01-0{day}T10:00:00Z"), &["commit", "-q", "-am", "more"]);
    }
    let mut app = app_on(&root, "dark", (110, 30));
    // Inline, the worker runs in `act` and its events wait in the queue: take them one by one.
    app.act(folio::app::action::Action::FocusHistory);
    let events: Vec<Event> = std::iter::from_fn(|| app.pending()).filter(|e| e.kind().starts_with("history")).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind()).collect();
    // The first version found, maybe more (one report each 50 ms), the walk's end, the answer.
    assert!(kinds.len() >= 3 && kinds[..kinds.len() - 1].iter().all(|k| *k == "history-found"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"history-read"));
    let mut titles = Vec::new();
    for ev in events {
        app.handle(ev);
        let screen = text(&render(&app));
        titles
            .push(screen.lines().find(|l| l.contains("5 History: notes/alpha")).expect("the pane's title").to_string());
        if app.model.history.reading {
            // Versions without summaries yet; no restore until the answer.
            assert!(screen.contains("more […]"), "{screen}");
            assert!(screen.contains("reading its content…"), "{screen}");
        }
    }
    let n = titles.len();
    assert!(titles[0].contains("1 version so far") && titles[0].contains("reading…"), "{}", titles[0]);
    assert!(titles[n - 2].contains("3 versions so far") && titles[n - 2].contains("reading…"), "{}", titles[n - 2]);
    assert!(titles[n - 1].contains("· 3 versions · git") && !titles[n - 1].contains("reading"), "{}", titles[n - 1]);
    // The answer is the history read without reports.
    let store = app.model.store.clone().unwrap();
    let plain = folio::store::history::of_entity(&store, app.model.open_entity().unwrap()).unwrap();
    let data = app.model.history.data.clone().unwrap().unwrap();
    assert!(data.history.complete);
    let summary = |h: &folio::store::history::History| -> Vec<(String, String)> {
        h.versions.iter().map(|v| (v.rev.clone(), v.change_line())).collect()
    };
    assert_eq!(summary(&data.history), summary(&plain));
    assert!(text(&render(&app)).contains("more [+1 -0]"));
    assert_eq!(data.blame.len(), 5);
    // An edit on disk: the history read before stays shown while the new one is read, and the
    // selected version stays selected though a new one now comes first.
    press(&mut app, &["j"]);
    let selected = data.history.versions[1].rev.clone();
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nOne.\nFour.\n");
    app.handle(Event::FilesChanged(vec![root.join("notes/alpha.md")]));
    let mut shown = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while app.model.history.data.as_ref().is_none_or(|d| d.as_ref().is_ok_and(|d| d.history.versions.len() < 4)) {
        assert!(std::time::Instant::now() < deadline, "the new version never came");
        if let Some(ev) = app.pending() {
            app.handle(ev);
            shown.push(app.model.history.data.clone().unwrap().unwrap().history.complete);
        } else {
            app.wait(std::time::Duration::from_millis(20));
        }
    }
    assert!(shown.iter().all(|&complete| complete), "a partial list replaced the complete one: {shown:?}");
    let data = app.model.history.data.clone().unwrap().unwrap();
    assert_eq!(data.history.versions[0].rev, "worktree");
    assert_eq!(data.history.versions[app.model.history.cursor].rev, selected);
}

#[test]
fn an_older_reads_answer_arriving_last_does_not_replace_the_newer() {
    if no_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = alpha_committed(t.path());
    let mut app = app_on(&root, "dark", (110, 30));
    let history_events = |app: &mut folio::app::App| -> Vec<Event> {
        std::iter::from_fn(|| app.pending()).filter(|e| e.kind().starts_with("history")).collect()
    };
    // Two reads side by side (as an agent's edit and a restore each ask for one): the first
    // read sees the committed file, the second the edit made since.
    app.act(folio::app::action::Action::FocusHistory);
    let older = history_events(&mut app);
    write(&root, "notes/alpha.md", "---\ntitle: Alpha\n---\nOne.\nTwo.\n");
    app.act(folio::app::action::Action::FocusHistory);
    let newer = history_events(&mut app);
    assert!(!older.is_empty() && !newer.is_empty());
    // The newer answer comes first, the older one last: the newer stays shown.
    for ev in newer.into_iter().chain(older) {
        app.handle(ev);
    }
    let data = app.model.history.data.clone().unwrap().unwrap();
    let revs: Vec<&str> = data.history.versions.iter().map(|v| v.rev.as_str()).collect();
    assert_eq!((revs.len(), revs[0]), (2, "worktree"), "{revs:?}");
    assert!(!app.model.history.reading);
}

#[test]
fn one_version_is_counted_as_one() {
    if no_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = alpha_committed(t.path());
    let mut app = app_on(&root, "dark", (110, 30));
    press(&mut app, &["5"]);
    let screen = text(&render(&app));
    assert!(screen.contains("5 History: notes/alpha · 1 version · git "), "{screen}");
}

/// An awareness home keeps its entries in one file, each with the log events that name it: the
/// pane shows the open entry's own events, also after it was opened on another entry of that
/// file (it kept the first entry's answer before, keyed by the file alone).
#[test]
fn each_entry_of_one_file_shows_its_own_events() {
    let (_t, root) = scratch(&fixture("awareness-home"));
    let mut app = app_on(&root, "dark", (140, 40));
    let events = |app: &folio::app::App| -> Vec<String> {
        let data = app.model.history.data.clone().expect("read by the worker").expect("no error");
        data.history.versions.iter().filter(|v| v.source == Source::Log).map(|v| v.rev.clone()).collect()
    };
    let open = |app: &mut folio::app::App, query: &str| {
        press(app, &["1", "/"]);
        type_text(app, query);
        press(app, &["<Enter>", "5"]);
    };
    open(&mut app, "Flag any business code");
    assert_eq!(app.model.history.id, "13kgzw0");
    assert_eq!(events(&app), ["memory/events.jsonl:7", "memory/events.jsonl:3"]);
    open(&mut app, "Prefer pnpm over npm");
    let id = app.model.history.id.clone();
    assert!(id.starts_with("19mh0bp"), "{id}");
    let screen = text(&render(&app));
    assert!(screen.contains(&format!("5 History: {id}")), "{screen}");
    assert!(events(&app).contains(&"memory/events.jsonl:5".to_string()), "{:?}", events(&app));
    open(&mut app, "Flag any business code");
    assert_eq!(events(&app), ["memory/events.jsonl:7", "memory/events.jsonl:3"]);
}

/// The diff under a version (issue 41): opens at its first change, `]`/`[` jump between
/// changes (saying so at either end), the page keys scroll it and leave the selection alone, and
/// the mouse wheel scrolls the diff over the diff and moves through the versions over the list.
#[test]
fn the_diff_jumps_between_changes_and_scrolls_by_key_and_wheel() {
    use ratatui::crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};
    if no_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("store");
    let body = |a: &str, b: &str| -> String {
        (1..=60)
            .map(|n| match n {
                20 => format!("{a}\n"),
                50 => format!("{b}\n"),
                n => format!("line {n}\n"),
            })
            .collect()
    };
    write(&root, "notes/alpha.md", format!("---\ntitle: Alpha\n---\n{}", body("first old", "second old")));
    first_commit(&root);
    write(&root, "notes/alpha.md", format!("---\ntitle: Alpha\n---\n{}", body("first new", "second new")));
    git(&root, "Bob", "2026-01-02T10:00:00Z", &["commit", "-q", "-am", "two changes"]);
    let mut app = app_on(&root, "dark", (110, 30));
    press(&mut app, &["5"]);
    let screen = |app: &folio::app::App| text(&render(app));
    let s = screen(&app);
    assert!(s.contains("change 1 of 2") && s.contains("+ first new") && !s.contains("+ second new"), "{s}");
    let opened = app.model.history.scroll;
    press(&mut app, &["["]);
    assert_eq!(app.model.message.as_ref().map(|m| m.text.as_str()), Some("this is the first change"));
    press(&mut app, &["]"]);
    let s = screen(&app);
    assert!(s.contains("change 2 of 2") && s.contains("+ second new") && !s.contains("+ first new"), "{s}");
    press(&mut app, &["]"]);
    assert_eq!(app.model.message.as_ref().map(|m| m.text.as_str()), Some("this is the last change"));
    press(&mut app, &["N"]);
    assert_eq!(app.model.history.scroll, opened);
    // Page keys move the diff, not the selected version.
    press(&mut app, &["<PageDown>", "<C-d>", "J"]);
    assert!(app.model.history.scroll > opened);
    assert_eq!(app.model.history.cursor, 0);
    press(&mut app, &["<PageUp>", "<PageUp>", "<PageUp>", "<C-u>", "K"]);
    assert_eq!(app.model.history.scroll, 0);
    // The wheel: over the diff (low in the pane) it scrolls it; over the list it selects.
    let wheel = |row| {
        Event::Mouse(MouseEvent { kind: MouseEventKind::ScrollDown, column: 80, row, modifiers: KeyModifiers::empty() })
    };
    app.handle(wheel(25));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!((app.model.history.scroll, app.model.history.cursor), (3, 0));
    app.handle(wheel(2));
    app.settle(std::time::Duration::from_secs(10));
    assert_eq!(app.model.history.cursor, 1, "the older version selected");
    assert!(screen(&app).contains("nothing → "), "its diff against nothing");
}
