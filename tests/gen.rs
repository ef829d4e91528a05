//! The corpus generator writes stores every dialect detects and loads with the planned counts,
//! deterministically; generated OKF bundles carry the facts the benchmarks rely on.
mod common;
use common::*;

use std::path::Path;

use folio::r#gen;
use folio::store::dialect::DialectKind;

fn md_files_under(root: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            n += md_files_under(&entry.path());
        } else if name.ends_with(".md") {
            n += 1;
        }
    }
    n
}

/// Whether this branch still carries the placeholder for a dialect (another helper writes it):
/// then only detection and the placeholder's file-per-entity count can be checked.
fn is_placeholder(kind: DialectKind) -> bool {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("src/store/dialect/{}.rs", kind.name()));
    std::fs::read_to_string(src).is_ok_and(|s| s.starts_with("//! PLACEHOLDER"))
}

#[test]
fn every_dialect_is_detected_and_loads_its_entities() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in DialectKind::ALL {
        let out = tmp.path().join(kind.name());
        let report = r#gen::generate(kind, 120, 7, &out).unwrap();
        assert_eq!(report.entities, 120);
        let stats = folio_json(&["stats", out.to_str().unwrap(), "--json"]);
        assert_eq!(stats["dialect"], kind.name(), "{kind}: {stats}");
        let expected = if is_placeholder(kind) {
            md_files_under(Path::new(stats["root"].as_str().unwrap()))
        } else {
            report.entities
        };
        assert_eq!(stats["entities"], expected, "{kind}");
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = r#gen::generate(DialectKind::Okf, 60, 3, &tmp.path().join("a")).unwrap();
    let b = r#gen::generate(DialectKind::Okf, 60, 3, &tmp.path().join("b")).unwrap();
    let c = r#gen::generate(DialectKind::Okf, 60, 4, &tmp.path().join("c")).unwrap();
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
    let err = r#gen::generate(DialectKind::Vault, 5, 1, tmp.path()).unwrap_err();
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
    let r = r#gen::generate(DialectKind::Okf, n, 11, &tmp.path().join("okf")).unwrap();
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
        let folio::store::frontmatter::Block::Closed { inner, .. } = folio::store::frontmatter::locate(t) else {
            panic!("no frontmatter")
        };
        assert!(folio::store::simple_yaml::parse(&t[inner]).is_some(), "{}", &t[..300]);
    }
}
