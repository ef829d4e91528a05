//! Verdicts write in each file's own style (issue 16 defect 2, the class of it): on every
//! format's store, with every file made CRLF, BOM-prefixed, without its final newline or with a
//! comment in its frontmatter, approve, veto and forget change no line ending, BOM, final
//! newline or comment they did not mean to, and `undo` gives back every byte but the log's.
use crate::support;
use support::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Style {
    Crlf,
    Bom,
    NoFinalNewline,
    FrontmatterComment,
}

const COMMENT: &str = "# kept by hand: folio must not drop this line";

/// Rewrite every markdown and log file of the store in `style`.
fn restyle(root: &Path, style: Style) {
    for (rel, bytes) in tree(root, &[]) {
        let Some(bytes) = bytes else { continue };
        if !(rel.ends_with(".md") || rel.ends_with(".jsonl") || rel.ends_with(".log")) {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let new = match style {
            Style::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
            Style::Bom if rel.ends_with(".md") => format!("\u{feff}{text}"),
            Style::NoFinalNewline => text.trim_end_matches('\n').to_string(),
            Style::FrontmatterComment if text.starts_with("---\n") => format!("---\n{COMMENT}\n{}", &text[4..]),
            _ => continue,
        };
        std::fs::write(root.join(&rel), new).unwrap();
    }
}

fn is_log(rel: &str) -> bool {
    rel.ends_with("log.md") || rel.ends_with(".jsonl") || rel.ends_with(".log")
}

/// What `after` did to `before`'s style, file by file: the problems found.
fn style_problems(
    before: &BTreeMap<String, Option<Vec<u8>>>,
    after: &BTreeMap<String, Option<Vec<u8>>>,
    style: Style,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (rel, new) in after {
        let (Some(new), Some(Some(old))) = (new, before.get(rel)) else { continue };
        if new == old {
            continue;
        }
        let (old_s, new_s) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
        match style {
            Style::Crlf if old_s.contains("\r\n") => {
                let bare = new_s.replace("\r\n", "").matches('\n').count();
                if bare > 0 {
                    problems.push(format!("{rel}: {bare} line(s) end with a bare LF in a CRLF file"));
                }
            }
            Style::Bom
                if old_s.starts_with('\u{feff}')
                    && (!new_s.starts_with('\u{feff}') || new_s.matches('\u{feff}').count() != 1) =>
            {
                problems.push(format!("{rel}: the BOM was lost or doubled"));
            }
            // A log gains lines after its last one; an entity keeps its ending as it was.
            Style::NoFinalNewline if !is_log(rel) && old.ends_with(b"\n") != new.ends_with(b"\n") => {
                problems.push(format!("{rel}: its final newline was added or removed"));
            }
            Style::FrontmatterComment if old_s.contains(COMMENT) && !new_s.contains(COMMENT) => {
                problems.push(format!("{rel}: the frontmatter comment was dropped"));
            }
            _ => {}
        }
    }
    problems
}

fn inbox(root: &Path) -> Vec<String> {
    let v = folio_json(&["review", root.to_str().unwrap(), "list", "--json"]);
    v["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    write(&root, "notes/a.md", "---\ntype: note\ntags:\n  - x\nstatus: draft\n---\n# A\n\n[[b]]\n");
    write(&root, "notes/b.md", "---\ntitle: \"B\"\nstatus: proposed\n---\n# B\n\n[[a]]\n");
    dir
}

#[test]
fn verdicts_keep_every_files_style_in_every_format() {
    let vault = vault();
    let stores = [
        corpus("okf-v0.2/acme_retail"),
        fixture("aip10-wiki"),
        fixture("evolve-project"),
        fixture("opendray-homelab"),
        fixture("awareness-home"),
        fixture("elophanto-knowledge"),
        vault.path().join("vault"),
    ];
    let styles = [Style::Crlf, Style::Bom, Style::NoFinalNewline, Style::FrontmatterComment];
    let jobs: Vec<(&PathBuf, Style)> = stores.iter().flat_map(|src| styles.map(|style| (src, style))).collect();
    // Each (store, style) is independent and mostly waits on folio processes: side by side.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found: std::sync::Mutex<(usize, Vec<String>)> = std::sync::Mutex::new((0, Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..2 * std::thread::available_parallelism().map_or(2, |n| n.get()) {
            scope.spawn(|| {
                while let Some(&(src, style)) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let (decided, problems) = decide_every_verdict(src, style);
                    let mut found = found.lock().unwrap();
                    found.0 += decided;
                    found.1.extend(problems);
                }
            });
        }
    });
    let (decided, problems) = found.into_inner().unwrap();
    // Seven formats × four styles × three verdicts × two items, less what does not apply.
    assert!(decided >= 100, "only {decided} verdicts applied");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every verdict on the first two inbox items of `src` restyled as `style`, each undone: how
/// many applied, and every style problem or byte an undo left.
fn decide_every_verdict(src: &Path, style: Style) -> (usize, Vec<String>) {
    let (mut decided, mut problems) = (0, Vec::new());
    let (_dir, styled) = scratch(src);
    restyle(&styled, style);
    let ids = inbox(&styled);
    assert!(!ids.is_empty(), "{} has an inbox", src.display());
    for (verb, extra) in [("approve", None), ("veto", Some("--reason=duplicate")), ("forget", None)] {
        for id in ids.iter().take(2) {
            let (_work_dir, work) = scratch(&styled);
            let (state, evolve_state) = (work.join(".folio"), work.join(".evolve/folio"));
            let state = [state.as_path(), evolve_state.as_path()];
            let before = tree(&work, &state);
            let w = work.to_str().unwrap();
            let mut args = vec!["review", w, verb, id.as_str(), "--as", "human:styles"];
            args.extend(extra);
            if verb == "approve" && work.join("memory/long-term.md").is_file() {
                // The awareness framework files an approved candidate under a kind it asks for.
                args.push("--kind=pattern");
            }
            let o = folio(&args);
            if !o.status.success() {
                // Some verdicts do not apply to some items (forgetting a catalog-less
                // note twice…); what matters is what the ones that apply write.
                continue;
            }
            decided += 1;
            let after = tree(&work, &state);
            for p in style_problems(&before, &after, style) {
                problems.push(format!("{} {style:?} {verb} {id}: {p}", src.display()));
            }
            let u = folio(&["undo", w]);
            assert!(u.status.success(), "undo after {verb} {id}: {}", String::from_utf8_lossy(&u.stderr));
            // The log keeps the decision and its undo: every other byte comes back.
            let undone = tree(&work, &state);
            let changed: Vec<&String> = before
                .iter()
                .filter(|(k, v)| !is_log(k) && undone.get(*k) != Some(v))
                .map(|(k, _)| k)
                .chain(undone.keys().filter(|k| !before.contains_key(*k)))
                .collect();
            if !changed.is_empty() {
                problems.push(format!("{} {style:?} {verb} {id}: undo left {changed:?}", src.display()));
            }
        }
    }
    (decided, problems)
}
