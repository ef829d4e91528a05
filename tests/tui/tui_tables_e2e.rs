//! Issue 41's tables in the real binary, in a private tmux pane: a cell longer than its column
//! wraps within the column, so its whole text reads at 160 and at 70 columns, and each column
//! keeps the alignment its delimiter row asks (`:---:` centred, `---:` right).
use crate::support;

use support::tui::tmux::{self, Tmux};

const LONG: &str = "exponential, jittered, capped at thirty seconds, then the call is dropped and the owner paged";

/// The table's rows as drawn: each screen row's cells (the text between the table's `│`),
/// from the header row to the table's last row.
fn table_rows(screen: &str) -> Vec<Vec<String>> {
    let rows: Vec<&str> = screen.lines().collect();
    let head = rows.iter().position(|r| r.contains("│ Policy ")).unwrap_or_else(|| panic!("no table:\n{screen}"));
    // The header's fields fix which of a row's `│`-separated fields are the table's.
    let fields = |r: &str| -> Vec<String> { r.split('│').map(str::to_string).collect() };
    let first = fields(rows[head]).iter().position(|f| f.contains("Call")).unwrap();
    rows[head..]
        .iter()
        .take_while(|r| r.contains("│ ") || r.contains("├"))
        .filter(|r| !r.contains("├"))
        .map(|r| fields(r).into_iter().skip(first).take(3).collect())
        .collect()
}

fn check_table(screen: &str) {
    let rows = table_rows(screen);
    // Header, three rows for the long cell at least, the short row.
    assert!(rows.len() >= 4, "{rows:?}\n{screen}");
    let (call, policy, tries) = (&rows[0][0], &rows[0][1], &rows[0][2]);
    // Centred header, left header, right header.
    let pads = |f: &str| (f.len() - f.trim_start().len(), f.len() - f.trim_end().len());
    let (l, r) = pads(call);
    assert!(l.abs_diff(r) <= 1 && l > 1, "`Call` centred: {call:?}");
    assert!(policy.starts_with(" Policy "), "{policy:?}");
    assert!(tries.ends_with("Tries "), "`Tries` right-aligned: {tries:?}");
    // The long cell's whole text, read down its column.
    let body: Vec<&Vec<String>> = rows[1..].iter().collect();
    let last = body
        .iter()
        .position(|r| r[0].contains("search"))
        .unwrap_or_else(|| panic!("no short row in {rows:?}\n{screen}"));
    let cell: Vec<&str> = body[..last].iter().map(|r| r[1].trim()).filter(|t| !t.is_empty()).collect();
    assert_eq!(cell.join(" "), LONG, "{screen}");
    assert!(body[0][2].ends_with(" 5 "), "`5` right-aligned: {:?}", body[0][2]);
    assert!(body[last][2].ends_with(" 12 "), "`12` right-aligned: {:?}", body[last][2]);
    let (l, r) = pads(&body[last][0]);
    assert!(l.abs_diff(r) <= 1, "`search → index` centred: {:?}", body[last][0]);
}

#[test]
fn a_long_cell_reads_whole_at_160_and_70_columns_with_its_alignment() {
    if !tmux::available() {
        assert!(std::env::var_os("CI").is_none(), "tmux is not installed: the table end-to-end test must run in CI");
        eprintln!("SKIPPED: tmux is not installed; the table end-to-end test did not run");
        return;
    }
    let (_keep, store) = support::tui::scratch(&support::tui::corpus("okf-v0.2/acme_retail"));
    support::tui::write(
        &store,
        "policies/retry.md",
        format!(
            "---\ntype: Concept\ntitle: Retry policy\ndescription: How the services retry calls.\n---\n\n# Retry policy\n\n\
             | Call | Policy | Tries |\n|:---:|---|---:|\n| payments → ledger | {LONG} | 5 |\n| search → index | none | 12 |\n"
        ),
    );
    let cfg = tempfile::tempdir().unwrap();
    let shell = format!(
        "env FOLIO_CONFIG_DIR={cfg} XDG_DATA_HOME={cfg} FOLIO_STATE_DIR={cfg}/state {bin} {store}; echo FOLIO-EXIT=$?; sleep 30",
        cfg = cfg.path().display(),
        bin = env!("CARGO_BIN_EXE_folio"),
        store = store.display()
    );
    let t = Tmux::start("folio-tables", (160, 45), &shell);
    t.wait_for("BROWSE");
    t.keys(&["/"]);
    t.wait_for("Recall · entities");
    t.keys(&["-l", "retry policy"]);
    t.wait_for("Retry policy");
    t.keys(&["Enter"]);
    check_table(&t.wait_for("│ Policy "));
    t.cmd(&["resize-window", "-t", "e2e", "-x", "70", "-y", "20"]);
    t.wait_for("okf · acme_retail");
    std::thread::sleep(std::time::Duration::from_millis(400));
    // At 70×20 the table is below the entity's properties: the preview's end shows it whole.
    t.keys(&["G"]);
    check_table(&t.wait_for("search → index"));
    t.keys(&["q"]);
    t.wait_for("FOLIO-EXIT=0");
}
