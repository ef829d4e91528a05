//! Issue 41, "a reviewer's day with 200 items", end to end: the real binary in a tmux pane.
//! The inbox reads by title with its reasons as badges and every count whole (160×45 and
//! 80×24); a generated 200-item queue is decided with `a` `y` per item, first to last; every
//! dialog names each file its write touches (the log, `.gitattributes`, the ledger) and `u`
//! takes a `.gitattributes` folio created away again; a merge says what it does to the target's
//! review state; a bulk fix names the subscribed clone it leaves out; a bulk approval of items
//! with lint errors warns and asks twice; help finds the review keys from the catalog; the
//! palette shows keys and puts the exact name first.
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support;
use support::tui::tmux::{self, Tmux};

/// Whether tmux and git are here; when not, says so in one line (and fails under `CI`).
fn runnable(what: &str) -> bool {
    if tmux::available() && support::git::available() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(!ci, "tmux or git is not installed and CI is set: {what} must run");
    eprintln!("SKIPPED: tmux or git is not installed; {what} did not run");
    false
}

/// The demo store, copied and committed to a fresh git repository (as a team keeps it).
fn demo_in_git() -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = support::scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    commit_all(&root, "the demo as the agents left it", "2026-11-20T10:00:00Z");
    (dir, root)
}

fn commit_all(root: &Path, message: &str, date: &str) {
    support::git::run(root, &["init", "-q"]);
    support::git::run(root, &["add", "-A"]);
    support::git::run_as(root, "Agent", date, &["commit", "-q", "-m", message]);
}

/// folio on `root` in a `w`×`h` tmux pane, its config and state folders of its own.
fn start(name: &str, root: &Path, size: (u16, u16), home: &Path) -> Tmux {
    let shell = format!(
        "env FOLIO_CONFIG_DIR={home}/config FOLIO_STATE_DIR={home}/state USER=e2e {bin} {root}; echo FOLIO-EXIT=$?; sleep 30",
        home = home.display(),
        bin = env!("CARGO_BIN_EXE_folio"),
        root = root.display()
    );
    let mut t = Tmux::start(name, size, &shell);
    t.key_pause = Duration::from_millis(100);
    t.patience = Duration::from_secs(20);
    t
}

/// The line of the screen holding `needle` (fails showing the screen when none does).
fn line_with<'s>(screen: &'s str, needle: &str) -> &'s str {
    screen.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line holds {needle:?}:\n{screen}"))
}

#[test]
fn the_inbox_reads_by_title_with_every_count_whole_and_its_list_resizes() {
    if !runnable("the inbox-by-title test") {
        return;
    }
    let (_dir, root) = demo_in_git();
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-160", &root, (160, 45), home.path());
    t.wait_for("40 entities");
    t.keys(&["R"]);
    t.wait_for("Review inbox (13)");
    // The count can be drawn before the list's last rows (a frame caught while drawn): the
    // screen read is the one with the row read last.
    let s = t.wait_for("Daily settlement");
    // By title, the id after it; reasons as badges.
    let row = line_with(&s, "Fraud Screening  services/fraud-screening");
    assert!(row.contains("│⚠ HC LE NR Fraud Screening  services/fraud-screening"), "{row}");
    assert!(line_with(&s, "Daily settlement").contains("CT NR"), "{s}");
    // The legend: every reason's badge, name and whole count, none cut.
    for whole in ["HC hidden-content 1", "CT contradiction 1", "DR draft 3", "LE lint-error 1", "NR never-reviewed 13"]
    {
        assert!(s.contains(whole), "{whole:?} is not shown whole:\n{s}");
    }
    assert!(!s.contains("draft,n…") && !s.contains("lint-er…"), "{s}");
    // `>` widens the inbox's list, not the catalog's sidebar (which stays as it was).
    let edge = |s: &str| line_with(s, "Review inbox").find('┐').unwrap();
    let before = edge(&s);
    t.keys(&[">", ">"]);
    let s = t.wait_for("inbox list 50%");
    assert!(edge(&s) > before, "the list did not widen:\n{s}");
    assert_eq!(std::fs::read_to_string(home.path().join("state/inbox-list")).unwrap().trim(), "50");
    assert!(!home.path().join("state/sidebar").exists(), "`>` in the inbox changed the catalog's width");
    t.keys(&["q", "q"]);
    t.wait_for("FOLIO-EXIT=0");

    // 80×24: still readable, by title, and every count is shown whole.
    let t = start("folio-inbox-80", &root, (80, 24), home.path());
    t.wait_for("40 entities");
    t.keys(&["R"]);
    t.wait_for("Review inbox (13)");
    let s = t.wait_for("Daily settlement");
    assert!(s.contains("HC LE NR Fraud Screening"), "{s}");
    for whole in ["hidden-content 1", "contradiction 1", "draft 3", "lint-error 1", "never-reviewed 13"] {
        assert!(s.contains(whole), "{whole:?} is not shown whole at 80×24:\n{s}");
    }
}

/// An OKF store of `n` draft tables (found as OKF by their frontmatter), committed to git; in
/// memory where the system has one (this is about keys and frames: 200 decisions' fsyncs were
/// a fifth of the test on a busy disk).
fn generated_store(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = support::in_memory_tempdir("folio-inbox-day-");
    let root = dir.path().join("day");
    for i in 1..=n {
        let text = format!(
            "---\ntype: Table\ntitle: Table {i:03}\ndescription: Rows of batch {i:03}.\nstatus: draft\n---\n\nRows of batch {i:03}.\n"
        );
        support::write(&root, &format!("tables/t{i:03}.md"), text);
    }
    commit_all(&root, "two hundred drafts", "2026-11-26T10:00:00Z");
    (dir, root)
}

#[test]
fn two_hundred_items_are_decided_with_a_then_y_each_first_to_last() {
    if !runnable("the 200-item review") {
        return;
    }
    const N: usize = 200;
    let (_dir, root) = generated_store(N);
    let home = support::in_memory_tempdir("folio-inbox-day-home-");
    let mut t = start("folio-inbox-200", &root, (160, 45), home.path());
    // Every key is followed by a wait for what it does: no pause is needed between them.
    t.key_pause = Duration::ZERO;
    t.wait_for(&format!("{N} entities"));
    t.keys(&["R"]);
    t.wait_for(&format!("Review inbox ({N})"));
    for i in 1..=N {
        // No moving: after each verdict the next item is the selected one.
        t.keys(&["a"]);
        t.wait_for(&format!("approve Table {i:03} (tables/t{i:03})?"));
        t.keys(&["y"]);
        let left = N - i;
        if left > 0 {
            t.wait_for(&format!("Review inbox ({left})"));
        }
    }
    t.wait_for("Nothing awaits a decision.");
    t.keys(&["q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
    for i in [1, 100, N] {
        let text = std::fs::read_to_string(root.join(format!("tables/t{i:03}.md"))).unwrap();
        assert!(text.contains("status: stable") && text.contains("human:e2e"), "t{i:03} was not approved:\n{text}");
    }
}

#[test]
fn every_dialog_names_the_log_gitattributes_and_ledger_and_undo_takes_them_back() {
    if !runnable("the dialogs-name-every-file test") {
        return;
    }
    let (_dir, root) = demo_in_git();
    // A second version of apis/refunds to restore from.
    let refunds = std::fs::read_to_string(root.join("apis/refunds.md")).unwrap();
    support::write(&root, "apis/refunds.md", format!("{refunds}\nA line an agent added.\n"));
    support::git::run(&root, &["add", "-A"]);
    support::git::run_as(&root, "Agent", "2026-11-21T10:00:00Z", &["commit", "-q", "-m", "an agent's line"]);
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-files", &root, (160, 45), home.path());
    t.wait_for("40 entities");

    // A verdict's dialog: the entity file, the log, folio's git rules and the ledger.
    t.keys(&["R", "f", "-l", "refunds-v2", "Enter"]);
    t.wait_for("Review inbox (1 of 13");
    t.keys(&["a"]);
    t.wait_for("approve POST /v2/refunds (apis/refunds-v2)?");
    // The dialog names the other files once the plan's impact is worked out (in the background).
    let s = t.wait_for("log.md changes:");
    for named in [
        "apis/refunds-v2.md",
        "log.md changes:",
        ".gitattributes (new file)",
        ".folio/.gitattributes (new file)",
        ".folio/review/verdicts.jsonl gains 1 verdict line",
    ] {
        assert!(s.contains(named), "the approve dialog does not name {named:?}:\n{s}");
    }
    t.keys(&["Escape"]);
    t.wait_for("cancelled; nothing was written");
    t.keys(&["q"]);
    t.wait_for(" BROWSE ");

    // A restore's dialog: the log and the root .gitattributes it creates.
    t.keys(&["j", "j", "Enter"]);
    t.wait_for("2 apis/refunds.md");
    t.keys(&["5"]);
    t.wait_for("History: apis/refunds · 2 versions");
    t.keys(&["j", "r"]);
    t.wait_for("Restore apis/refunds.md to version");
    let s = t.wait_for("log.md changes:");
    for named in ["also written:", ".gitattributes (new file)", "log.md changes:", "**Restore**"] {
        assert!(s.contains(named), "the restore dialog does not name {named:?}:\n{s}");
    }
    t.keys(&["y"]);
    t.wait_for("restored ");
    assert!(root.join(".gitattributes").exists(), "the restore wrote the git rules it announced");
    // `u` takes the restore back, the `.gitattributes` folio created with it too.
    t.keys(&["u"]);
    // Its dialog names the entity by title before the git rules' files.
    t.wait_for("undo restore of POST /v1/refunds (apis/refunds) and 3 more");
    t.keys(&["y"]);
    let s = t.wait_for("undone · put back");
    assert!(line_with(&s, "undone").contains("logged to log.md"), "{s}");
    assert!(!root.join(".gitattributes").exists(), "u left the .gitattributes folio created");
    assert_eq!(
        std::fs::read_to_string(root.join("apis/refunds.md")).unwrap(),
        format!("{refunds}\nA line an agent added.\n")
    );
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
}

#[test]
fn a_merge_says_what_it_does_to_the_targets_review_state() {
    if !runnable("the merge review-state test") {
        return;
    }
    let (_dir, root) = support::scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    // The target is still a draft awaiting review.
    let refunds = std::fs::read_to_string(root.join("apis/refunds.md")).unwrap();
    support::write(&root, "apis/refunds.md", refunds.replace("status: stable", "status: draft"));
    commit_all(&root, "the demo, apis/refunds back to draft", "2026-11-20T10:00:00Z");
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-merge", &root, (160, 45), home.path());
    t.wait_for("40 entities");
    t.keys(&["R", "f", "-l", "refunds-v2", "Enter"]);
    t.wait_for("Review inbox (1 of 14");
    t.keys(&["m"]);
    t.wait_for("Merge POST /v2/refunds (apis/refunds-v2) into…");
    t.keys(&["-l", "apis/refunds"]);
    t.keys(&["Enter"]);
    t.wait_for("Merge apis/refunds-v2 into apis/refunds");
    t.keys(&["C-s"]);
    t.wait_for("merge POST /v2/refunds (apis/refunds-v2) into POST /v1/refunds (apis/refunds)?");
    let s = t.wait_for("review state:");
    let state = line_with(&s, "review state:");
    assert!(state.contains("review state: `apis/refunds` is recorded as approved by this merge"), "{state}");
    assert!(s.contains("`draft` stays)"), "{s}");
    t.keys(&["Escape", "q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
}

#[test]
fn a_bulk_fix_leaves_out_and_names_a_subscribed_clone() {
    if !runnable("the bulk-fix sources test") {
        return;
    }
    let (_dir, root) = support::scratch(&support::fixture("evolve-project"));
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-fix", &root, (160, 45), home.path());
    t.wait_for("entities");
    t.keys(&["4"]);
    t.wait_for("4 Lint:");
    // Down the findings until one of legacy-trigger is selected, then F.
    let mut found = None;
    for _ in 0..40 {
        t.keys(&["F"]);
        std::thread::sleep(Duration::from_millis(400));
        let s = t.screen();
        if s.contains("of legacy-trigger in") {
            found = Some(s);
            break;
        }
        if s.contains("Fix ") && s.contains("y write") {
            t.keys(&["n"]);
        }
        t.keys(&["j"]);
    }
    let s = found.expect("no legacy-trigger finding offered a bulk fix");
    let title = line_with(&s, "of legacy-trigger in");
    assert!(title.contains("of this store's own?"), "{title}");
    assert!(s.contains("left out, not this store's own files"), "{s}");
    assert!(s.contains("subscribed/alice-guidelines: a subscribed clone of someone else's published"), "{s}");
    assert!(!s.contains("+++ b/subscribed/"), "the dialog would write the subscribed clone:\n{s}");
    let theirs = ".evolve/entities/subscribed/alice-guidelines/guideline/pin-python-version-in-pyproject.md";
    let before = std::fs::read_to_string(root.join(theirs)).unwrap();
    t.keys(&["y"]);
    t.wait_for("fixed ");
    assert_eq!(std::fs::read_to_string(root.join(theirs)).unwrap(), before, "F wrote the subscribed clone");
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
}

#[test]
fn bulk_approving_items_with_lint_errors_warns_and_asks_twice() {
    if !runnable("the bulk-approve warning test") {
        return;
    }
    let (_dir, root) = demo_in_git();
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-bulk", &root, (160, 45), home.path());
    t.wait_for("40 entities");
    t.keys(&["R"]);
    t.wait_for("Review inbox (13)");
    t.keys(&["A"]);
    t.wait_for("approve 13 entities?");
    let s = t.wait_for("⚠ 1 item of these 13");
    assert!(s.contains("⚠ 1 item of these 13 has lint errors: a second confirmation is needed"), "{s}");
    assert!(line_with(&s, "⚠   Fraud Screening (services/fraud-screening)").contains(':'), "{s}");
    let before = std::fs::read_to_string(root.join("services/fraud-screening.md")).unwrap();
    t.keys(&["y"]);
    t.wait_for("SECOND CONFIRMATION");
    assert_eq!(std::fs::read_to_string(root.join("services/fraud-screening.md")).unwrap(), before);
    t.keys(&["Escape"]);
    t.wait_for("cancelled; nothing was written");
    t.keys(&["q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
}

#[test]
fn help_finds_the_review_keys_from_the_catalog_and_the_palette_shows_keys_exact_name_first() {
    if !runnable("the help and palette test") {
        return;
    }
    let (_dir, root) = demo_in_git();
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-help", &root, (160, 45), home.path());
    t.wait_for("40 entities");
    // From the catalog: `approve` is found, under the review context.
    t.keys(&["?", "-l", "approve"]);
    let s = t.wait_for("Help: every key, catalog first");
    assert!(!s.contains("no binding matches"), "{s}");
    let row = line_with(&s, "  Approve  ");
    assert!(row.contains(" a ") && row.contains("review"), "{row}");
    t.keys(&["Escape"]);
    // The palette: each action with its key, the context named when it is another's.
    t.keys(&[":", "-l", "approve"]);
    let s = t.wait_for("Command palette");
    let row = line_with(&s, "Approve the selected item");
    assert!(row.contains("a (review)"), "{row}");
    t.keys(&["Escape", ":", "-l", "history"]);
    let s = t.wait_for(": history");
    // The action named history comes before "Go back in history", which only says it.
    let palette: Vec<&str> = s.lines().skip_while(|l| !l.contains(": history")).skip(1).collect();
    assert!(palette[0].contains("Show the open entity's history"), "{s}");
    t.keys(&["Enter"]);
    t.wait_for("5 History:");
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
}

/// Issue 41: a single `f` on a finding in a subscribed clone (someone else's published
/// guidelines, which `F` leaves out) writes only after a second `y`, the first one saying whose
/// file it is.
#[test]
fn a_single_fix_of_a_subscribed_clone_asks_twice_naming_whose_it_is() {
    if !runnable("the single-fix sources test") {
        return;
    }
    let (_dir, root) = support::scratch(&support::fixture("evolve-project"));
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-fix-one", &root, (160, 45), home.path());
    t.wait_for("entities");
    t.keys(&["4"]);
    t.wait_for("4 Lint:");
    // Down the findings until `f` offers a fix in the subscribed clone.
    let mut found = None;
    for _ in 0..60 {
        t.keys(&["f"]);
        std::thread::sleep(Duration::from_millis(400));
        let s = t.screen();
        if s.contains("Fix ") && s.contains("⚠ not this store's own file: subscribed/") {
            found = Some(s);
            break;
        }
        if s.contains("Fix ") && s.contains("y write") {
            t.keys(&["n"]);
        }
        t.keys(&["j"]);
    }
    let s = found.expect("no finding in the subscribed clone offered a fix");
    assert!(s.contains("y twice: not this store's own file"), "{s}");
    let theirs = root.join(".evolve/entities/subscribed/alice-guidelines/guideline");
    let read_all = || -> Vec<String> {
        let mut files: Vec<_> = std::fs::read_dir(&theirs).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect()
    };
    let before = read_all();
    t.keys(&["y"]);
    let s = t.wait_for("y again to write it anyway");
    let said = support::tui::status_line(&s, 160);
    assert!(said.contains("(n cancels): subscribed/alice-guidelines: a subscribed clone"), "{said}\n{s}");
    assert!(said.ends_with("not yours (evolve sync overwrites it)"), "the whole message: {said}\n{s}");
    assert_eq!(read_all(), before, "one y wrote the subscribed clone");
    t.keys(&["y"]);
    t.wait_for("fixed ");
    assert_ne!(read_all(), before, "the second y wrote the fix");
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
}

/// Issue 41: an evolve item approved by a `review` row of the store's audit log, whose text folio
/// never kept, is `changed-since-approval` and its detail names that approval — it never says
/// "Never approved" under a reason that says it was approved.
#[test]
fn an_approval_whose_text_is_not_kept_agrees_with_its_reason_on_screen() {
    if !runnable("the evolve approval-detail test") {
        return;
    }
    let (_dir, root) = support::scratch(&support::fixture("evolve-project"));
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-evolve-approved", &root, (160, 45), home.path());
    t.wait_for("entities");
    t.keys(&["R"]);
    // The changed-since-approval tier comes first: its one item is selected.
    let s = t.wait_for("Approved by human:maria");
    assert!(s.contains("CH changed-since-approval 1"), "{s}");
    assert!(line_with(&s, "Approved by human:maria").contains("that text is not kept"), "{s}");
    assert!(!s.contains("Never approved"), "the detail contradicts its reason:\n{s}");
    // A never-reviewed item says so.
    t.keys(&["j"]);
    t.wait_for("Never approved: the whole text");
    t.keys(&["q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
}

/// Issue 41: the detail calls a `duplicate-title` pair "a merge candidate", and `m` offers the
/// other entity of the pair first: `m` `Enter` opens the merge into it.
#[test]
fn the_merge_picker_offers_a_duplicate_title_pair_first() {
    if !runnable("the duplicate-title merge test") {
        return;
    }
    let (_dir, root) = support::scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-merge-title", &root, (160, 45), home.path());
    t.wait_for("40 entities");
    t.keys(&["R", "f", "-l", "amounts-minor-units", "Enter"]);
    let s = t.wait_for("a merge candidate");
    assert!(s.contains("`conventions/money-in-minor-units.md`: a merge candidate"), "{s}");
    t.keys(&["m"]);
    let s = t.wait_for("target: ");
    // Offered before anything is typed: the first row under the query, selected.
    let query = s.lines().position(|l| l.contains("target: ")).unwrap();
    let first = s.lines().nth(query + 1).unwrap();
    assert!(first.contains("Money Amounts in Minor Units  conventions/money-in-minor-units"), "{s}");
    t.keys(&["Enter"]);
    t.wait_for("Merge conventions/amounts-minor-units into conventions/money-in-minor-units");
    t.keys(&["Escape"]);
    t.keys(&["Escape", "q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
}

/// Issue 41: approving an awareness promotion candidate whose section folio infers (a repeated
/// candidate: the framework's `memory review` suggests it as a pattern) is `a` `y`: no question
/// first, the dialog names the section and why, and Tab files it under any other section of
/// the long-term memory instead.
#[test]
fn an_awareness_candidate_with_an_inferred_section_is_a_then_y_and_tab_changes_it() {
    if !runnable("the awareness two-key approval test") {
        return;
    }
    let (_dir, root) = support::scratch(&support::fixture("awareness-home"));
    let home = tempfile::tempdir().unwrap();
    let t = start("folio-inbox-awareness", &root, (160, 45), home.path());
    t.wait_for("24 entities");
    t.keys(&["R", "f", "-l", "restic", "Enter"]);
    t.wait_for("Review inbox (2 of 20 · restic)");
    // The detail says where `a` files it before anything is pressed.
    let s = t.wait_for("under Patterns, inferred");
    assert!(line_with(&s, "asks for").contains("candidate → active entry under Patterns, inferred"), "{s}");
    t.keys(&["a"]);
    let s = t.wait_for("files under: ## Patterns (inferred: a repeated candidate");
    assert!(s.contains("<Tab>  file under the next section"), "the status bar hints Tab:\n{s}");
    assert!(
        s.contains("Tab: the next section (1 Preferences · 2 Patterns · 3 Project Conventions · 4 Review Guidance)"),
        "{s}"
    );
    // Any section, one key each: Patterns → Project Conventions → Review Guidance.
    t.keys(&["Tab"]);
    t.wait_for("files under: ## Project Conventions (chosen; folio inferred Patterns)");
    t.keys(&["Tab"]);
    t.wait_for("files under: ## Review Guidance (chosen; folio inferred Patterns)");
    t.keys(&["y"]);
    t.wait_for("wrote memory/long-term.md");
    let text = std::fs::read_to_string(root.join("memory/long-term.md")).unwrap();
    let line = text.find("Check the restic snapshot age").expect("the promoted entry");
    let (guidance, candidates) =
        (text.find("## Review Guidance").unwrap(), text.find("## Promotion Candidates").unwrap());
    assert!(guidance < line && line < candidates, "filed under Review Guidance:\n{text}");
    assert_eq!(text.matches("Check the restic snapshot age").count(), 1, "its twin folded in:\n{text}");
    t.keys(&["q", "q"]);
    t.wait_for("FOLIO-EXIT=0");
}
