//! `folio review PATH baseline`: a store adopted as it stands. Every matching inbox item is
//! recorded as reviewed in folio's ledger, no store file is rewritten, the log gets one event,
//! and afterwards only what agents change or add enters the inbox.
use crate::support;
use support::*;

use std::path::Path;

fn inbox(root: &Path, filter: Option<&str>) -> Vec<String> {
    let r = root.to_str().unwrap();
    let mut args = vec!["review", r, "list", "--json"];
    if let Some(f) = filter {
        args.extend(["--filter", f]);
    }
    let v = folio_json(&args);
    v["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

fn ok(args: &[&str]) -> String {
    let o = folio(args);
    assert_eq!(o.status.code(), Some(0), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

#[test]
fn baseline_records_the_inbox_as_reviewed_and_writes_only_the_log() {
    let (_d, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    // An item with hidden control characters, which a baseline never takes.
    write(&root, "metrics/hidden.md", "---\ntype: Metric\ntitle: Hidden\n---\n# Hidden\n\nred \x1b[31mtext\n");
    // Its concepts a person verified after their last change are not queued (OKF `verified`):
    // its skill and the hidden item are.
    let before = inbox(&root, None);
    assert!(before.len() >= 2, "{before:?}");
    let state = root.join(".folio");
    let files_before = tree(&root, &[&state, &root.join("log.md")]);
    let log_before = std::fs::read_to_string(root.join("log.md")).unwrap();

    // A dry run writes nothing at all.
    let dry = ok(&["review", r, "baseline", "--as", "human:ann", "--dry-run"]);
    assert!(dry.contains(&format!("would baseline {} entities", before.len() - 1)), "{dry}");
    assert_eq!(inbox(&root, None), before);

    let out = ok(&["review", r, "baseline", "--as", "human:ann"]);
    assert!(out.contains(&format!("baseline {} entities", before.len() - 1)), "{out}");
    assert!(!out.contains("wrote "), "no store file rewritten: {out}");
    assert_eq!(tree(&root, &[&state, &root.join("log.md")]), files_before, "no entity, catalog or other file changed");
    // One event in the store's own log, added to it, nothing else in it changed.
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    let added: Vec<&str> = log.lines().filter(|l| !log_before.lines().any(|o| o == *l)).collect();
    let events: Vec<&&str> = added.iter().filter(|l| l.contains("**Baseline**")).collect();
    assert_eq!(events.len(), 1, "{added:?}");
    assert!(events[0].contains("human:ann"), "{}", events[0]);
    assert_eq!(inbox(&root, None), ["metrics/hidden"], "only the hidden content stays");
    let history = ok(&["log", r]);
    assert!(history.contains("aseline"), "{history}");

    // Afterwards: what an agent changes or adds enters the inbox, nothing else.
    let skill = std::fs::read_to_string(root.join("skills/run-on-bq.md")).unwrap();
    std::fs::write(root.join("skills/run-on-bq.md"), format!("{skill}\nAn agent's new line.\n")).unwrap();
    write(&root, "metrics/new-kpi.md", "---\ntype: Metric\ntitle: New KPI\n---\n# New KPI\n");
    let now = folio_json(&["review", r, "list", "--json"]);
    let reasons: Vec<(String, String)> = now["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_str().unwrap().to_string(), i["reasons"][0].as_str().unwrap().to_string()))
        .collect();
    let mut ids: Vec<&str> = reasons.iter().map(|(i, _)| i.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["metrics/hidden", "metrics/new-kpi", "skills/run-on-bq"], "{reasons:?}");
    assert!(reasons.contains(&("skills/run-on-bq".into(), "changed-since-approval".into())), "{reasons:?}");
    assert!(reasons.contains(&("metrics/new-kpi".into(), "never-reviewed".into())), "{reasons:?}");

    // The baseline is one changeset: undo takes it back and the inbox is as before it.
    ok(&["undo", r, "--as", "human:ann"]);
    let mut back = inbox(&root, None);
    back.retain(|i| i != "metrics/new-kpi");
    let mut expect = before.clone();
    expect.sort();
    back.sort();
    assert_eq!(back, expect);
}

#[test]
fn a_filtered_baseline_takes_only_what_matches() {
    let (_d, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let r = root.to_str().unwrap();
    write(&root, "metrics/new-kpi.md", "---\ntype: Metric\ntitle: New KPI\n---\n# New KPI\n");
    let all = inbox(&root, None);
    let metrics = inbox(&root, Some("path:metrics/"));
    assert!(!metrics.is_empty() && metrics.len() < all.len(), "{metrics:?} of {all:?}");
    let out = ok(&["review", r, "baseline", "--filter", "path:metrics/", "--as", "human:ann"]);
    assert!(out.contains(&format!("baseline {} entities", metrics.len())), "{out}");
    let left = inbox(&root, None);
    assert_eq!(left.len(), all.len() - metrics.len());
    assert!(left.iter().all(|i| !i.starts_with("metrics/")), "{left:?}");
    // A second run finds nothing left to do and writes nothing.
    let log = std::fs::read(root.join("log.md")).unwrap();
    let again = ok(&["review", r, "baseline", "--filter", "path:metrics/", "--as", "human:ann"]);
    assert!(again.contains("nothing to baseline"), "{again}");
    assert_eq!(std::fs::read(root.join("log.md")).unwrap(), log);
}

fn confirm_text(app: &folio::app::App) -> String {
    let c = app.model.review.confirm.as_ref().expect("a confirm dialog is open");
    format!("{}\n{}", c.title, c.lines.join("\n"))
}

#[test]
fn b_in_the_inbox_previews_the_count_and_baselines_on_confirm() {
    use support::tui::press;
    let (_d, root) = scratch(&Path::new(env!("CARGO_MANIFEST_DIR")).join("demo"));
    let mut app = support::tui::inbox::open(&root, (120, 40));
    let items = app.model.review.items.clone();
    let hidden: Vec<String> = items.iter().filter(|i| i.hidden_content).map(|i| i.id.clone()).collect();
    assert!(!hidden.is_empty() && items.len() > hidden.len() + 5, "{} items, hidden {hidden:?}", items.len());
    let state = root.join(".folio");
    let before = tree(&root, &[&state]);

    // The preview counts what it takes and says what it leaves; Esc writes nothing.
    press(&mut app, &["B"]);
    let shown = confirm_text(&app);
    let n = items.len() - hidden.len();
    assert!(shown.starts_with(&format!("baseline {n} entities?")), "{shown}");
    assert!(shown.contains(&format!("{n} entities:")) && shown.contains("0 files change:"), "{shown}");
    assert!(shown.contains(&format!("{} items with hidden content stay in the inbox", hidden.len())), "{shown}");
    press(&mut app, &["<Esc>"]);
    assert!(app.model.review.confirm.is_none());
    assert_eq!(tree(&root, &[&state]), before, "cancelled: nothing written");

    press(&mut app, &["B", "y"]);
    let left: Vec<String> = app.model.review.items.iter().map(|i| i.id.clone()).collect();
    assert_eq!(left, hidden, "only hidden content stays in the inbox");
    // The CLI sees the same ledger; only the store's log changed among its files.
    let r = root.to_str().unwrap();
    assert_eq!(inbox(&root, None), hidden);
    let after = tree(&root, &[&state]);
    let changed: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let log = ok(&["log", r]);
    assert!(log.contains("aseline"), "{log}");
    // In the one action vocabulary: the help overlay and the palette name it.
    assert_eq!(folio::app::action::Action::from_name("baseline"), Some(folio::app::action::Action::Baseline));
    press(&mut app, &["?"]);
    let help = support::tui::text(&support::tui::render(&app));
    assert!(help.contains("Baseline"), "{help}");
}
