//! The corpus generator writes stores every dialect detects and loads with the planned counts,
//! deterministically; generated OKF bundles carry the facts the benchmarks rely on.
use crate::support;
use support::*;

use std::path::Path;

use folio::store::dialect::DialectKind;

#[test]
fn every_dialect_is_detected_and_loads_its_entities() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in DialectKind::all().filter(|k| k.spec().store_is_folder) {
        let out = tmp.path().join(kind.name());
        let report = folio_gen::generate(kind, 120, 7, &out).unwrap();
        assert_eq!(report.entities, 120);
        let stats = folio_json(&["stats", out.to_str().unwrap(), "--json"]);
        assert_eq!(stats["dialect"], kind.name(), "{kind}: {stats}");
        // An awareness home's board (awareness/current.md) and AGENTS.md are entities too.
        let expected =
            if kind == folio::store::dialect::awareness::KIND { report.entities + 2 } else { report.entities };
        assert_eq!(stats["entities"], expected, "{kind}");
        // Generated stores are clean, but for evolve's realistic legacy `trigger` keys.
        if kind != folio::store::dialect::evolve::KIND {
            assert_eq!(stats["files_with_problems"], 0, "{kind}: generated stores are clean");
        }
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = folio_gen::generate(folio::store::dialect::okf::KIND, 60, 3, &tmp.path().join("a")).unwrap();
    let b = folio_gen::generate(folio::store::dialect::okf::KIND, 60, 3, &tmp.path().join("b")).unwrap();
    let c = folio_gen::generate(folio::store::dialect::okf::KIND, 60, 4, &tmp.path().join("c")).unwrap();
    assert_eq!((a.files, a.bytes, a.links), (b.files, b.bytes, b.links));
    assert_eq!(tree_bytes(&a.store), tree_bytes(&b.store));
    assert_ne!(tree_bytes(&a.store), tree_bytes(&c.store));
}

/// Every file of a tree (relative path and bytes), in path order.
fn tree_bytes(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    concept_files(root, &mut files);
    let mut out: Vec<_> = files
        .iter()
        .map(|f| (f.strip_prefix(root).unwrap().to_string_lossy().into_owned(), std::fs::read(f).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn refuses_a_non_empty_folder() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "keep.md", "mine");
    let err = folio_gen::generate(folio::store::dialect::vault::KIND, 5, 1, tmp.path()).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("keep.md")).unwrap(), "mine");
}

fn concept_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            concept_files(&p, out);
        } else if p.file_name().is_some_and(|n| n != "index.md" && n != "log.md") {
            out.push(p);
        }
    }
}

#[test]
fn okf_bundle_has_fresh_catalogs_realistic_sizes_and_countable_links() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 1500;
    let r = folio_gen::generate(folio::store::dialect::okf::KIND, n, 11, &tmp.path().join("okf")).unwrap();
    let s = r.store.to_str().unwrap();
    assert_eq!(folio(&["index", "--check", s]).status.code(), Some(0), "generated catalogs are fresh");
    let mut files = Vec::new();
    concept_files(&r.store, &mut files);
    assert_eq!(files.len(), n);
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    let mean = texts.iter().map(String::len).sum::<usize>() / n;
    assert!((2500..3200).contains(&mean), "mean concept size {mean}");
    let per_entity = r.links as f64 / n as f64;
    assert!((5.0..6.0).contains(&per_entity), "{per_entity} links per concept");
    // External links are written only as `](https://`, broken ones only as `](/<type>/missing-`.
    let external: usize = texts.iter().map(|t| t.matches("](https://").count()).sum();
    let broken: usize = texts.iter().map(|t| t.matches("/missing-").count()).sum();
    let stats = folio_json(&["stats", s, "--json"]);
    assert_eq!(stats["entities"], n);
    assert_eq!(stats["links"].as_u64().unwrap() as usize + external, r.links);
    assert_eq!(stats["unresolved_links"].as_u64().unwrap() as usize, broken);
    assert_eq!(stats["problems"], 0);
    // Every generated frontmatter takes the fast reader (the benchmark measures that path).
    for t in &texts {
        let folio::store::read::frontmatter::Block::Closed { inner, .. } = folio::store::read::frontmatter::locate(t)
        else {
            panic!("no frontmatter")
        };
        assert!(folio::store::read::frontmatter::simple_yaml::parse(&t[inner]).is_some(), "{}", &t[..300]);
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md" || e == "mdx") {
            out.push(p);
        }
    }
}

/// (files the line scanner answered for, files with links) after checking that every answer
/// equals pulldown-cmark's links.
fn scanner_agrees(files: &[std::path::PathBuf]) -> (usize, usize) {
    use folio::store::{model::lines::LineIndex, read::frontmatter, read::link_scan, read::links};
    let (mut answered, mut with_links) = (0, 0);
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        let body_start = match frontmatter::locate(&text) {
            frontmatter::Block::Closed { body_start, .. } => body_start,
            _ => 0,
        };
        let lines = LineIndex::new(&text);
        let reference = links::extract_with_pulldown(&text, body_start, &lines);
        with_links += usize::from(!reference.is_empty());
        if let Some(fast) = link_scan::scan(&text, body_start) {
            assert_eq!(fast, reference, "{}", f.display());
            answered += 1;
        }
    }
    (answered, with_links)
}

#[test]
fn link_scanner_agrees_with_pulldown_on_the_corpora() {
    let mut files = Vec::new();
    for root in corpus_roots() {
        markdown_files(&root, &mut files);
    }
    assert!(files.len() > 100, "{} corpus files", files.len());
    let (answered, _) = scanner_agrees(&files);
    assert!(answered > 0);
}

#[test]
fn link_scanner_agrees_with_pulldown_on_generated_stores() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in DialectKind::all().filter(|k| k.spec().store_is_folder) {
        let r = folio_gen::generate(kind, 300, 5, &tmp.path().join(kind.name())).unwrap();
        let mut files = Vec::new();
        markdown_files(&r.store, &mut files);
        let (answered, _) = scanner_agrees(&files);
        // Generated bodies are ordinary markdown: nearly all take the fast path.
        assert!(answered * 10 >= files.len() * 9, "{kind}: {answered} of {}", files.len());
    }
}

/// The `wild` shape (issue 44): the same seed writes the same bytes, another seed others, and
/// the store holds what real ones do.
#[test]
fn wild_shape_is_deterministic_and_as_rough_as_real_stores() {
    use folio_gen::Shape;
    let tmp = tempfile::tempdir().unwrap();
    let vault = folio::store::dialect::vault::KIND;
    let n = 400;
    let a = folio_gen::generate_shaped(vault, n, 5, &tmp.path().join("a"), Shape::Wild).unwrap();
    let b = folio_gen::generate_shaped(vault, n, 5, &tmp.path().join("b"), Shape::Wild).unwrap();
    let c = folio_gen::generate_shaped(vault, n, 6, &tmp.path().join("c"), Shape::Wild).unwrap();
    let tree = tree_bytes(&a.store);
    assert_eq!((a.files, a.bytes, a.links), (b.files, b.bytes, b.links));
    assert_eq!(tree, tree_bytes(&b.store));
    assert_ne!(tree, tree_bytes(&c.store));
    let tidy = folio_gen::generate(vault, n, 5, &tmp.path().join("tidy")).unwrap();
    assert_ne!(tree, tree_bytes(&tidy.store), "wild is not tidy");

    let notes: Vec<&Vec<u8>> = tree.iter().filter(|(p, _)| p.ends_with(".md")).map(|(_, b)| b).collect();
    let has = |needle: &[u8]| notes.iter().filter(|b| b.windows(needle.len()).any(|w| w == needle)).count();
    assert!(notes.iter().any(|b| std::str::from_utf8(b).is_err()), "a non-UTF-8 file");
    assert!(has(b"\r\n") >= 1, "CRLF files");
    assert!(notes.iter().any(|b| b.len() > 2 << 20), "a file of several MB");
    assert!(has(b"supersedes: ") >= 1 && has(b"stale_after: 202") >= n / 2);
    assert!(has(b"](") >= n / 3 && has(b"[[") >= n / 2, "markdown links and wikilinks");
    assert!(a.links as f64 / n as f64 > 5.0, "{} links", a.links);
    let catalog = std::fs::read_to_string(a.store.join("Catalog.md")).unwrap();
    assert!(catalog.contains("retired/page-0.md"), "a dangling catalog entry");

    let s = a.store.to_str().unwrap();
    let stats = folio_json(&["stats", s, "--json"]);
    assert_eq!(stats["dialect"], "vault", "{stats}");
    assert!(stats["files_with_problems"].as_u64().unwrap() > 0, "malformed and broken files are found: {stats}");
}

/// Every folder dialect's wild store is still read as that dialect.
#[test]
fn wild_stores_keep_their_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in DialectKind::all().filter(|k| k.spec().store_is_folder) {
        let out = tmp.path().join(kind.name());
        folio_gen::generate_shaped(kind, 120, 7, &out, folio_gen::Shape::Wild).unwrap();
        let stats = folio_json(&["stats", out.to_str().unwrap(), "--json"]);
        assert_eq!(stats["dialect"], kind.name(), "{kind}: {stats}");
    }
}
