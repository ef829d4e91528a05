//! `folio lint --format json`: the bytes `print_json(&lint::export::json(..))` writes, each
//! finding rendered apart on rayon's threads. Serialized one after the other on the main thread,
//! the 100k wild vault's findings (7 MB) were the last tenth of a cached `lint` with the other
//! core idle (docs/benchmarks.md, "Twenty-first session").
use std::io::Write;

use super::pretty_json::PrettyJson;
use folio_core::store::Store;
use folio_core::store::lint::{Finding, Report};

/// Findings rendered on one rayon thread at a time.
const RUN: usize = if cfg!(test) { 2 } else { 2048 };

/// Writes the report to standard output; a failed write (a closed pipe) ends the output, not
/// the command, as `print_json`.
pub fn print(store: &Store, report: &Report) {
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let _ = write(out, store, report);
}

pub fn write<W: Write>(out: W, store: &Store, report: &Report) -> std::io::Result<W> {
    let mut j = PrettyJson::new(out);
    j.begin_object();
    j.key("store");
    j.str(&store.root.display().to_string());
    j.key("dialect");
    j.str(store.kind().name());
    j.key("findings");
    let found: Vec<Row<'_>> = report.findings.iter().map(|f| (f, None)).collect();
    rows(&mut j, store, &found)?;
    j.key("suppressed");
    let ignored: Vec<Row<'_>> = report.suppressed.iter().map(|s| (&s.finding, Some(s.reason.as_str()))).collect();
    rows(&mut j, store, &ignored)?;
    let s = report.summary();
    j.key("summary");
    j.begin_object();
    for (key, n) in [
        ("total", report.findings.len()),
        ("errors", s.errors),
        ("warnings", s.warnings),
        ("infos", s.infos),
        ("files", s.files),
        ("fixable", s.fixable),
        ("ignored", report.suppressed.len()),
    ] {
        j.key(key);
        j.u64(n as u64);
    }
    j.key("by_rule");
    j.begin_object();
    for (rule, n) in &s.by_rule {
        j.key(rule);
        j.u64(*n as u64);
    }
    j.end_object();
    j.end_object();
    j.end_object();
    j.finish()
}

/// A finding, and why it is ignored when it is.
type Row<'a> = (&'a Finding, Option<&'a str>);

/// The array of `rows`, each rendered two deep on rayon's threads and written in order.
fn rows<W: Write>(j: &mut PrettyJson<W>, store: &Store, rows: &[Row<'_>]) -> std::io::Result<()> {
    use rayon::prelude::*;
    // A run's text and each of its rows' bytes in it.
    type Run = (Vec<u8>, Vec<std::ops::Range<usize>>);
    let runs: Vec<Run> = rows
        .par_chunks(RUN)
        .map(|run| {
            let (mut text, mut spans) = (Vec::new(), Vec::with_capacity(run.len()));
            for &(f, reason) in run {
                let from = text.len();
                let mut row = PrettyJson::nested(text, 2);
                write_row(&mut row, store, f, reason);
                text = row.into_buf();
                spans.push(from..text.len());
            }
            (text, spans)
        })
        .collect();
    j.begin_array();
    for (text, spans) in &runs {
        for span in spans {
            j.element();
            j.raw(&text[span.clone()]);
            j.write_if_full()?;
        }
    }
    j.end_array();
    Ok(())
}

/// One finding as `lint::export`'s `Row` serializes: 0 as a line or column is no position
/// (`null`); `reason` only for an ignored finding.
fn write_row<W: Write>(j: &mut PrettyJson<W>, store: &Store, f: &Finding, reason: Option<&str>) {
    j.begin_object();
    j.key("rule");
    j.str(f.rule);
    j.key("severity");
    j.str(f.severity.name());
    j.key("entity");
    j.opt_str(f.entity.map(|i| store.entity(i).id.as_str()));
    j.key("path");
    j.opt_str(f.path.as_deref());
    for (key, at) in [("line", f.line), ("column", f.col)] {
        j.key(key);
        match at {
            0 => j.null(),
            n => j.u64(u64::from(n)),
        }
    }
    j.key("message");
    j.str(&f.message);
    j.key("fix");
    j.opt_str(f.fix.as_ref().map(|x| x.description.as_str()));
    if let Some(reason) = reason {
        j.key("reason");
        j.str(reason);
    }
    j.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_core::store::lint::fix::{Change, Expected, Fix};
    use folio_core::store::lint::{self, Suppressed};

    /// What `common::print_json` writes of `lint::export::json`.
    fn by_serde(store: &Store, report: &Report) -> Vec<u8> {
        let mut w = super::super::escape::JsonWriter::new(Vec::new());
        serde_json::to_writer_pretty(&mut w, &lint::export::json(store, report)).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
        w.into_inner()
    }

    /// A vault's own findings, some worded with quotes, controls, bidi and zero-width
    /// characters, without a position or a path, and some of them ignored with such reasons:
    /// the same bytes as serde's, over more findings than one run renders.
    #[test]
    fn writes_the_report_as_serde_does() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..6 {
            let text = format!("---\ntitle: Note {i}\n---\nSee [[Missing {i}]] and [gone](gone-{i}.md).\n");
            std::fs::write(dir.path().join(format!("note-{i}.md")), text).unwrap();
        }
        std::fs::write(dir.path().join("bare.md"), "no frontmatter, \u{1b}[31m red\n").unwrap();
        let store = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        let mut report = lint::lint(&store, &Default::default());
        assert!(report.findings.len() > 4, "{report:?}");
        let hostile = ["say \"hi\"\\ \u{7}\u{1b}[2J", "\u{202e}evil\u{200b}\u{feff}\u{85}", "line\nbreak\ttab \u{7f}"];
        for (n, f) in report.findings.iter_mut().enumerate() {
            if n % 3 == 0 {
                f.message = format!("{} {}", f.message, hostile[n % hostile.len()]).into();
            }
            if n % 4 == 1 {
                (f.line, f.col) = (0, 0);
            }
        }
        report.findings[1].fix = Some(Box::new(Fix {
            path: "note-0.md".into(),
            description: format!("make it so {}", hostile[1]),
            expected: Expected::Absent,
            change: Change::Replace(String::new()),
        }));
        report.findings[2].path = None;
        report.findings[3].entity = None;
        report.suppressed = report.findings[..3]
            .iter()
            .zip(hostile)
            .map(|(f, why)| Suppressed { finding: f.clone(), reason: why.to_string() })
            .collect();
        let want = by_serde(&store, &report);
        let got = write(Vec::new(), &store, &report).unwrap();
        assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
        // And with nothing found.
        let empty = Report::default();
        assert_eq!(write(Vec::new(), &store, &empty).unwrap(), by_serde(&store, &empty));
    }
}
