//! Issue 41's small things, in the real binary in a private tmux pane: graph labels cut with
//! `…` and never run into by an edge, a merged page shown as provenance (not broken), and the
//! catalog's two marker columns (`!` for warnings and errors only, `◌` beside it).
use crate::support;

use support::tui::tmux::{self, Tmux};

fn skip() -> bool {
    if !tmux::available() {
        assert!(std::env::var_os("CI").is_none(), "tmux is not installed: the marker end-to-end tests must run in CI");
        eprintln!("SKIPPED: tmux is not installed; the marker end-to-end tests did not run");
        return true;
    }
    false
}

/// folio on `store` in a `w`×`h` pane, with its own config and state.
fn start(name: &str, size: (u16, u16), store: &std::path::Path, cfg: &tempfile::TempDir) -> Tmux {
    let shell = format!(
        "env FOLIO_CONFIG_DIR={cfg} XDG_DATA_HOME={cfg} FOLIO_STATE_DIR={cfg}/state {bin} {store}; echo FOLIO-EXIT=$?; sleep 30",
        cfg = cfg.path().display(),
        bin = env!("CARGO_BIN_EXE_folio"),
        store = store.display()
    );
    let t = Tmux::start(name, size, &shell);
    t.wait_for("BROWSE");
    t
}

const LONG: [&str; 4] = [
    "Settlement cutoff at midnight UTC for every acquirer",
    "Idempotency keys on every payment request",
    "Error response envelope for public APIs",
    "Webhook signing secrets rotated every quarter",
];

/// A hub linking four pages with long titles and one short, that absorbed `old-notes` in a merge.
fn hub_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("graph-vault");
    // First by title: the entity open at start.
    let mut body = String::from("---\ntitle: All payments hub\nmerged_from: [old-notes]\n---\n# All payments hub\n\n");
    for (k, title) in LONG.iter().enumerate() {
        support::tui::write(&root, &format!("p{k}.md"), format!("---\ntitle: {title}\n---\n# {title}\n\n[[hub]]\n"));
        body += &format!("- [[p{k}]]\n");
    }
    support::tui::write(&root, "short.md", "---\ntitle: Short\n---\n# Short\n");
    body += "- [[short]]\n";
    support::tui::write(&root, "hub.md", body);
    (dir, root)
}

/// The canvas's rows: the graph pane's rows above its lists, right of the catalog.
fn canvas(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows.iter().position(|r| r.contains("3 Graph:")).unwrap_or_else(|| panic!("no graph:\n{screen}"));
    let lists = rows.iter().position(|r| r.contains("← backlinks")).unwrap_or_else(|| panic!("no lists:\n{screen}"));
    // The graph's corner is the last `┌` on its title row (the catalog's is the first).
    let skip = rows[top].chars().enumerate().filter(|&(_, c)| c == '┌').map(|(i, _)| i).last().unwrap_or(0);
    rows[top + 1..lists].iter().map(|r| r.chars().skip(skip + 1).collect()).collect()
}

/// Every long title shows cut with `…` (never cut bare), and every label has a blank either side
/// on the canvas: no edge runs into its letters. At least `placed` labels are drawn whole.
fn check_labels(screen: &str, room: usize, placed: usize) {
    let rows = canvas(screen);
    let mut seen = 0;
    for title in LONG.iter().copied().chain(["All payments hub", "Short"]) {
        let label: String = if title.chars().count() > room {
            let kept: String = title.chars().take(room - 1).collect();
            format!("{}…", kept.trim_end())
        } else {
            title.to_string()
        };
        let cut_bare: String = title.chars().take(room).collect();
        for row in &rows {
            assert!(
                !(row.contains(&cut_bare) && title.chars().count() > room && !row.contains(title)),
                "{title:?} cut without …:\n{screen}"
            );
            let chars: Vec<char> = row.chars().collect();
            let want: Vec<char> = label.chars().collect();
            for at in (0..chars.len()).filter(|&i| chars[i..].starts_with(&want)) {
                seen += 1;
                let before = at.checked_sub(1).map(|i| chars[i]);
                let after = chars.get(at + want.len()).copied();
                assert!(
                    before.is_none_or(|c| c == ' ') && after.is_none_or(|c| c == ' ' || c == '│'),
                    "an edge touches {label:?} ({before:?} … {after:?}):\n{screen}"
                );
            }
        }
    }
    assert!(seen >= placed, "{seen} labels drawn whole, {placed} expected:\n{screen}");
}

#[test]
fn graph_labels_end_in_an_ellipsis_and_a_merged_page_is_not_broken() {
    if skip() {
        return;
    }
    let (_keep, root) = hub_store();
    let cfg = tempfile::tempdir().unwrap();
    let t = start("folio-graph-labels", (160, 45), &root, &cfg);
    t.keys(&["3"]);
    t.wait_for("3 Graph: All payments hub");
    t.wait_for("merged from ◇ old-notes");
    // The canvas once the worker has laid it out.
    let mut screen = t.screen();
    for _ in 0..100 {
        if !screen.contains("laying out…") && screen.contains("outbound (6") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        screen = t.screen();
    }
    // Room for every node's label: each is drawn whole, none run over by an edge.
    check_labels(&screen, 18, 6);
    // The merge trail is provenance: a row of its own, and nothing is called broken.
    assert!(screen.contains("merged from ◇ old-notes (merged in, page archived)"), "{screen}");
    assert!(screen.contains("outbound (6, 1 merged in) →"), "{screen}");
    assert!(!screen.contains("broken"), "{screen}");
    // Enter on it says what it is, not that a link is broken.
    t.keys(&["j", "j", "j", "j", "j", "Enter"]);
    t.wait_for("merged into this page: its own page was archived");
    // Narrow: labels still end in … and stand clear of the edges.
    t.cmd(&["resize-window", "-t", "e2e", "-x", "70", "-y", "30"]);
    // Redrawn at the new width: the graph's border closes the top row at column 70.
    let mut screen = t.screen();
    for _ in 0..100 {
        let top = screen.lines().next().unwrap_or("");
        if top.chars().count() == 70 && top.ends_with('┐') && screen.contains("← backlinks") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        screen = t.screen();
    }
    check_labels(&screen, 18, 3);
}

/// The catalog column of the screen: the rows of the pane titled `1 Catalog`.
fn catalog_rows(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows.iter().position(|r| r.contains("1 Catalog")).unwrap_or_else(|| panic!("no catalog:\n{screen}"));
    let width = rows[top].chars().skip(1).position(|c| c == '┐').unwrap() + 2;
    rows[top..].iter().map(|r| r.chars().take(width).collect()).take_while(|r: &String| !r.is_empty()).collect()
}

#[test]
fn the_catalog_marks_discriminate_and_pending_shows_beside_lint() {
    if skip() {
        return;
    }
    // A draft with a broken link: both marks on its row.
    let (_keep, root) = support::tui::tricky_vault();
    let cfg = tempfile::tempdir().unwrap();
    let t = start("folio-markers-vault", (160, 45), &root, &cfg);
    t.wait_for("!◌ Alpha");
    // The legend on the catalog's bottom border.
    t.wait_for("└ ! warn/error  · info  ◌ pending review ─");
    drop(t);

    // evolve: `legacy-trigger` on 10 of 15 guidelines is the store's, not each row's.
    let (_keep, root) = support::tui::scratch(&support::tui::fixture("evolve-project"));
    let t = start("folio-markers-evolve", (160, 45), &root, &cfg);
    t.wait_for("legacy-trigger on 10");
    // (entity rows, `!` rows, `·` rows) of the catalog as drawn.
    let count = |screen: &str| {
        let rows = catalog_rows(screen);
        let mark = |r: &String| r.trim_start_matches('│').trim_start().chars().next();
        let entities: Vec<String> = rows
            .into_iter()
            .filter(|r| r.starts_with("│  ") && !r.contains('▾') && !r.contains('▸'))
            .filter(|r| !r.trim_matches(['│', ' ']).is_empty())
            .collect();
        let flagged = entities.iter().filter(|r| mark(r) == Some('!')).count();
        let noted = entities.iter().filter(|r| mark(r) == Some('·')).count();
        (entities.len(), flagged, noted)
    };
    // The loader's marks come first; the lint pass adds the orphans' dim marks.
    let mut screen = t.screen();
    for _ in 0..100 {
        if count(&screen).2 >= 10 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        screen = t.screen();
    }
    // Warnings and errors of their own: a broken link, a stale flag, two invalid files; the
    // other rows but one carry infos or the store-wide rule only.
    assert_eq!(count(&screen), (15, 4, 10), "{screen}");
}
