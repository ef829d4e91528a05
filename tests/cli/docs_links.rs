//! The README and the book in `docs/` link to each other, to the source tree and to headings:
//! every relative link must lead to a file or folder that exists, and a `#fragment` on a
//! markdown target to one of its headings (slugs as GitHub and mdBook make them). Every page of
//! the book is listed in `docs/SUMMARY.md`. No network: web links are not followed.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every markdown file under docs/.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// The text with fenced code blocks and inline code spans blanked out (kept as spaces, so line
/// numbers stay), since `[x](y)` inside code is not a link.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            _ => {}
        }
        if fence.is_some() || marker.is_some() {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(line);
        }
    }
    blank_code_spans(&out)
}

/// Blank every inline code span: a run of n backticks up to the next run of exactly n, within
/// one paragraph; an unmatched run is literal text.
fn blank_code_spans(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let run_at = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let para_end = text[i..].find("\n\n").map_or(b.len(), |e| i + e);
        let mut j = i + n;
        let mut close = None;
        while j < para_end {
            if b[j] == b'`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                for c in &mut out[i..j + n] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = j + n;
            }
            None => i += n,
        }
    }
    // Only ASCII bytes were replaced, by ASCII, so the text stays valid UTF-8.
    String::from_utf8(out).unwrap()
}

/// Every link target in the prose, with its line: inline `[text](target)` and `![alt](target)`,
/// and reference definitions `[label]: target`.
fn links(prose: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].trim().trim_start_matches('<').trim_end_matches('>');
            // An optional title: `(path "title")`.
            let target = target.split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.to_string()));
            rest = &after[end..];
        }
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some(close) = t.find("]: ")
        {
            found.push((n + 1, t[close + 3..].split_whitespace().next().unwrap_or("").to_string()));
        }
    }
    found
}

/// A heading's anchor as GitHub and mdBook make it: lower-cased, spaces to `-`, anything but
/// letters, digits, `-` and `_` dropped (markup already reduced to its text).
fn slug(heading: &str) -> String {
    let mut text = String::new();
    // `[text](target)` counts as its text.
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let tail = &rest[open + 1..];
        match (tail.find("]("), tail.find(')')) {
            (Some(close), Some(paren)) if close < paren => {
                text.push_str(&tail[..close]);
                rest = &tail[paren + 1..];
            }
            _ => {
                text.push('[');
                rest = tail;
            }
        }
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a markdown file defines: its ATX headings (repeats get `-1`, `-2`…) and HTML ids.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(m) = ["```", "~~~"].into_iter().find(|m| t.starts_with(m)) {
            fence = match fence {
                None => Some(m),
                Some(f) if f == m => None,
                f => f,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            let base = slug(t[hashes..].trim().trim_end_matches('#').trim());
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
            *n += 1;
        }
        for key in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(key) {
                let after = &rest[at + key.len()..];
                let end = after.find('"').unwrap_or(after.len());
                out.insert(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    out
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(root()).unwrap().display().to_string();
        for (line, target) in links(&prose(&text)) {
            if target.is_empty() || is_external(&target) {
                continue;
            }
            checked += 1;
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let file =
                if path.is_empty() { page.clone() } else { page.parent().unwrap().join(path.replace("%20", " ")) };
            if !file.exists() {
                broken.push(format!("{shown}:{line}: `{target}`: no such file"));
                continue;
            }
            let Some(fragment) = fragment.filter(|f| !f.is_empty()) else { continue };
            if file.extension().is_none_or(|x| x != "md") {
                continue;
            }
            if !anchors(&std::fs::read_to_string(&file).unwrap()).contains(fragment) {
                broken.push(format!("{shown}:{line}: `{target}`: no heading makes the anchor #{fragment}"));
            }
        }
    }
    assert!(checked > 100, "the link scanner finds the book's links ({checked})");
    assert!(broken.is_empty(), "{} broken link(s):\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_the_summary() {
    let docs = root().join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&prose(&summary)).into_iter().map(|(_, t)| docs.join(t)).collect();
    for page in &listed {
        assert!(page.starts_with(&docs) && page.is_file(), "SUMMARY.md lists {}, not a page in docs/", page.display());
    }
    let missing: Vec<String> = pages()
        .into_iter()
        .filter(|p| p.starts_with(&docs) && !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(missing.is_empty(), "pages of docs/ missing from SUMMARY.md: {missing:?}");
}

#[test]
fn the_scanner_sees_links_and_not_code() {
    let text = "See [a](a.md#x) and `[b](b.md)`.\n\n```\n[c](c.md)\n```\n![d](img/d.svg \"t\")\n[e]: e.md\n";
    let found: Vec<String> = links(&prose(text)).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["a.md#x", "img/d.svg", "e.md"]);
    assert_eq!(slug("`veto ID… --reason TEXT [--stub]`"), "veto-id---reason-text---stub");
    assert_eq!(slug("Every store shape, round 6: AIP-10's full load"), "every-store-shape-round-6-aip-10s-full-load");
    assert_eq!(slug("See [the book](x.md)"), "see-the-book");
}

/// SECURITY.md ties each promise to the tests that check it: every test function it names
/// (a backticked snake_case name with an underscore) exists in the workspace's sources, and
/// every source file it names (a backticked path ending in `.rs`) is there.
#[test]
fn every_test_security_md_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let security = std::fs::read_to_string(root.join("SECURITY.md")).unwrap();
    let mut sources = String::new();
    for dir in ["tests", "src", "crates"] {
        collect_rust(&root.join(dir), &mut sources);
    }
    let mut named = 0;
    for span in security.split('`').skip(1).step_by(2) {
        if span.ends_with(".rs") && span.contains('/') && !span.contains(' ') {
            assert!(root.join(span).is_file(), "SECURITY.md names `{span}`, which is not in the repository");
            continue;
        }
        let is_fn = span.contains('_')
            && span.len() > 12
            && span.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !is_fn {
            continue;
        }
        named += 1;
        let fuzz_target = root.join("fuzz/fuzz_targets").join(format!("{span}.rs")).exists();
        assert!(
            fuzz_target || sources.contains(&format!("fn {span}(")),
            "SECURITY.md names `{span}`, which no test or fuzz target defines"
        );
    }
    assert!(named >= 10, "SECURITY.md names only {named} tests");
}

fn collect_rust(dir: &Path, out: &mut String) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_rust(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
        }
    }
}
