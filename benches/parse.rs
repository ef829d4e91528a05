//! Per-file costs of the load path's stages on 2,000 generated OKF concepts held in memory:
//! frontmatter (serde_yaml_ng + conversion vs the fast reader) and link extraction
//! (pulldown-cmark vs the line scanner). Divide by 2,000 for µs per concept.
use criterion::{Criterion, criterion_group, criterion_main};
use folio::store::model::lines::LineIndex;
use folio::store::read::frontmatter::{self, Block};
use folio::store::{read::frontmatter::simple_yaml, read::link_scan, read::links};

struct Doc {
    text: String,
    yaml: std::ops::Range<usize>,
    body_start: usize,
}

fn docs() -> Vec<Doc> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let r = folio_gen::generate(folio::store::dialect::okf::KIND, 2_000, 1, &tmp.path().join("okf")).expect("generate");
    let mut out = Vec::new();
    let mut stack = vec![r.store];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "index.md" && n != "log.md") {
                let text = std::fs::read_to_string(&p).expect("read");
                if let Block::Closed { inner, body_start, .. } = frontmatter::locate(&text) {
                    out.push(Doc { text, yaml: inner, body_start });
                }
            }
        }
    }
    out
}

fn stages(c: &mut Criterion) {
    let docs = docs();
    let mut g = c.benchmark_group("parse-2000-concepts");
    g.sample_size(20);
    g.bench_function("yaml/serde_yaml_ng", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| {
                    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&d.text[d.yaml.clone()]).expect("yaml");
                    frontmatter::yaml_to_json(v).as_object().map_or(0, |m| m.len())
                })
                .sum::<usize>()
        })
    });
    g.bench_function("yaml/simple_yaml", |b| {
        b.iter(|| {
            docs.iter().filter_map(|d| simple_yaml::parse(&d.text[d.yaml.clone()])).map(|f| f.len()).sum::<usize>()
        })
    });
    g.bench_function("links/pulldown-cmark", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| links::extract_with_pulldown(&d.text, d.body_start, &LineIndex::new(&d.text)).len())
                .sum::<usize>()
        })
    });
    g.bench_function("links/line-scanner", |b| {
        b.iter(|| docs.iter().filter_map(|d| link_scan::scan(&d.text, d.body_start)).map(|l| l.len()).sum::<usize>())
    });
    g.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
