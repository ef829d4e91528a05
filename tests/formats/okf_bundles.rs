//! A folder of OKF bundles (knowledge-catalog's `okf/bundles/`, or the corpora's `okf-v0.2/`)
//! is several stores, not one (issue 25): the CLI names them and opens one with `--bundle`,
//! the TUI lists them to choose from, and nothing is ever written into the folder itself.
use crate::support;
use support::tui::{app_on, press, render, text};
use support::{copy_tree, corpus, folio, folio_json};

fn bundles() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundles");
    for b in ["acme_retail", "ga4"] {
        copy_tree(&corpus(&format!("okf-v0.2/{b}")), &root.join(b));
    }
    (dir, root)
}

#[test]
fn the_cli_names_the_bundles_and_opens_one_with_bundle() {
    let (_d, root) = bundles();
    let r = root.to_str().unwrap();
    for args in [vec!["stats", r], vec!["lint", r], vec!["index", r], vec!["review", r, "list"]] {
        let o = folio(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("holds 2 OKF bundles (acme_retail, ga4)") && err.contains("--bundle NAME"), "{err}");
    }
    assert!(!root.join("index.md").exists(), "no catalog was written into the folder of bundles");
    let stats = folio_json(&["stats", r, "--bundle", "ga4", "--json"]);
    assert_eq!(stats["dialect"], "okf");
    assert!(stats["root"].as_str().unwrap().ends_with("bundles/ga4"), "{stats}");
    assert_eq!(stats["unresolved_links"], 0);
    let o = folio(&["stats", r, "--bundle", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no bundle `nope` here (there are: acme_retail, ga4)"));
    // One bundle's folder opens as it always did.
    assert_eq!(folio_json(&["stats", root.join("acme_retail").to_str().unwrap(), "--json"])["dialect"], "okf");
}

#[test]
fn the_tui_lists_the_bundles_and_opens_the_chosen_one() {
    let (_d, root) = bundles();
    let mut app = app_on(&root, "dark", (100, 24));
    assert!(app.model.store.is_none());
    let choice = app.model.store_choice.clone().expect("a choice is offered");
    assert_eq!(choice.names, ["acme_retail", "ga4"]);
    let screen = text(&render(&app));
    assert!(screen.contains("2 OKF bundles here") && screen.contains("ga4"), "{screen}");
    press(&mut app, &["j", "<Enter>"]);
    let store = app.model.store.clone().expect("the chosen bundle is loaded");
    assert!(store.root.ends_with("bundles/ga4"), "{}", store.root.display());
    assert!(app.model.store_choice.is_none());
}

/// Opened at a folder inside a bundle, `stats` names the bundle, and links resolve as the
/// bundle's readers resolve them: `/policies/…` from the bundle root, `../tables/…` to a file
/// that is there. Nothing is a false finding.
#[test]
fn a_bundle_opened_at_a_subfolder_resolves_from_the_bundle_root() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("acme_retail");
    copy_tree(&corpus("okf-v0.2/acme_retail"), &bundle);
    std::fs::write(
        bundle.join("metrics/links.md"),
        "---\ntype: Metric\ntitle: Links\ndescription: Link forms.\n---\n# Links\n\n[a](/metrics/revenue.md) \
         [b](/policies/margin-standard.md) [c](../tables/orders.md) [d](../tables/gone.md) [e](../../../x.md)\n",
    )
    .unwrap();
    let r = bundle.join("metrics");
    let stats = folio_json(&["stats", r.to_str().unwrap(), "--json"]);
    assert_eq!(stats["enclosing"]["what"], "OKF bundle");
    assert_eq!(stats["enclosing"]["below"], "metrics/");
    let shown = folio_json(&["show", r.to_str().unwrap(), "links", "--json"]);
    let got: Vec<(&str, &str)> = shown["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["status"].as_str().unwrap(), l["resolved"].as_str().unwrap_or("-")))
        .collect();
    assert_eq!(
        got,
        [
            ("entity", "revenue"),
            ("file", "../policies/margin-standard.md"),
            ("file", "../tables/orders.md"),
            ("broken", "-"),
            ("escapes-root", "-"),
        ]
    );
    let lint = folio_json(&["lint", "--format", "json", r.to_str().unwrap()]);
    let links: Vec<&str> = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "broken-link" || f["rule"] == "link-escapes-root")
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(links, ["broken-link", "link-escapes-root"], "{lint}");
}

/// A store in a subfolder of a git repository says so (a monorepo's `docs/knowledge`).
#[test]
fn a_store_inside_a_git_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    copy_tree(&corpus("okf-v0.2/ga4"), &repo.join("docs/ga4"));
    let store = repo.join("docs/ga4");
    let stats = folio_json(&["stats", store.to_str().unwrap(), "--json"]);
    assert_eq!(stats["git_repository"], repo.canonicalize().unwrap().display().to_string());
    let text = String::from_utf8_lossy(&folio(&["stats", store.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("in the git repository at "), "{text}");
    // At the repository's own top, nothing to say.
    copy_tree(&corpus("okf-v0.2/ga4"), &dir.path().join("top"));
    std::fs::create_dir_all(dir.path().join("top/.git")).unwrap();
    assert!(folio_json(&["stats", dir.path().join("top").to_str().unwrap(), "--json"])["git_repository"].is_null());
}
