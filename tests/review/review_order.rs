//! The inbox in order of need (issue 18): one OKF store with an item of each reason OKF has,
//! listed by `folio review list --json` and shown by the TUI pane in the same order, each tier
//! newest first; `Tab` jumps between tiers; the header counts each reason.
use crate::support;
use std::path::Path;
use std::process::Command;

use support::tui::*;

fn concept(title: &str, extra: &str, updated: &str, body: &str) -> String {
    format!(
        "---\ntype: Concept\ntitle: {title}\ndescription: {title} in one line.\n{extra}updated: {updated}\n---\n# {title}\n\n{body}\n"
    )
}

fn cli(root: &Path, args: &[&str]) -> std::process::Output {
    let data = root.parent().unwrap().join("xdg");
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .arg("review")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .env("XDG_DATA_HOME", &data)
        .env("XDG_CACHE_HOME", &data)
        .env("XDG_STATE_HOME", &data)
        .env_remove("FOLIO_CACHE_DIR")
        .output()
        .unwrap()
}

/// A store with one item per reason: hidden content, changed since approval, draft, a lint
/// error, and two never reviewed (the newer must come first).
fn store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("okf");
    write(&root, "index.md", "# Index\n\n[a](/plain-old.md)\n");
    write(&root, "plain-old.md", concept("Plain old", "", "2024-01-01", "Old and never looked at."));
    write(&root, "plain-new.md", concept("Plain new", "", "2025-06-01", "Newer and never looked at."));
    write(&root, "draft.md", concept("Draft", "status: draft\n", "2024-02-01", "A proposal."));
    write(&root, "hidden.md", concept("Hidden", "", "2024-03-01", "Looks fine \u{1b}[8msecret\u{1b}[0m."));
    write(&root, "lint-error.md", "---\ntitle: Lint error\ndescription: No type.\nupdated: 2024-04-01\n---\nBody.\n");
    write(&root, "changed.md", concept("Changed", "", "2024-05-01", "Approved text."));
    let o = cli(&root, &["approve", "changed", "--as", "human:ann"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = root.join("changed.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("Approved text.", "An agent rewrote this.")).unwrap();
    (dir, root)
}

#[test]
fn cli_and_tui_list_the_inbox_by_need() {
    let (_d, root) = store();
    let o = cli(&root, &["list", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    let ids: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    let expected = ["hidden", "changed", "draft", "lint-error", "plain-new", "plain-old"];
    // `index` is a never-reviewed hub too; it carries no date, so it ends its tier.
    let ranked: Vec<&str> = ids.iter().copied().filter(|i| *i != "index").collect();
    assert_eq!(ranked, expected, "{ids:?}");
    let priorities: Vec<u64> =
        items.iter().filter(|i| i["id"] != "index").map(|i| i["priority"].as_u64().unwrap()).collect();
    assert_eq!(priorities, [1, 2, 3, 4, 6, 6]);
    let reasons = |id: &str| -> Vec<String> {
        let i = items.iter().find(|i| i["id"] == id).unwrap();
        i["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect()
    };
    assert!(reasons("hidden").contains(&"hidden-content".to_string()));
    assert!(reasons("lint-error").contains(&"lint-error".to_string()));
    assert_eq!(reasons("changed"), ["changed-since-approval"]);
    assert_eq!(v["reasons"]["draft"], 1);
    assert_eq!(v["reasons"]["changed-since-approval"], 1);

    // `reason:` narrows to one reason.
    let o = cli(&root, &["list", "--json", "--filter", "reason:draft"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["count"], 1);
    assert_eq!(v["items"][0]["id"], "draft");

    // The TUI pane shows the same order, counts reasons in its header, and Tab steps tiers.
    let mut app = inbox::open(&root, (140, 30));
    assert_eq!(inbox::queued(&app), ids);
    let screen = text(&render(&app));
    assert!(screen.contains("hidden-content 1"), "{screen}");
    assert_eq!(inbox::selected(&app), "hidden");
    press(&mut app, &["<Tab>"]);
    assert_eq!(inbox::selected(&app), "changed");
    press(&mut app, &["<Tab>", "<Tab>", "<Tab>"]);
    assert_eq!(inbox::selected(&app), "plain-new");
    press(&mut app, &["<Tab>"]);
    assert_eq!(inbox::selected(&app), "hidden", "Tab wraps to the first tier");
}
