//! `folio recall [PATH] QUERY`: fuzzy recall, ranked as the TUI ranks it; with `--text`, every
//! body searched too (words and "phrases", BM25) and the matching lines shown.
use serde_json::json;

use super::common::{Global, open_store_reading, print_json, split_path_arg};
use super::escape;
use folio_core::store::Reads;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] QUERY — the store (optional) and the query (fzf syntax: 'exact ^prefix suffix$ !not;
    /// filters kind:/type: tag: status:/maturity: scope: has:lint has:pending).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [QUERY")]
    pub words: Vec<String>,
    /// At most this many results.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Also match each H2 section of the bodies (as the TUI does after Ctrl-S).
    #[arg(long)]
    pub sections: bool,
    /// Also search every body: words and "quoted phrases", ranked by BM25 together with the
    /// fuzzy fields; each result shows its matching lines.
    #[arg(long, conflicts_with = "sections")]
    pub text: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, query) = split_path_arg(a.words)?;
    // Body queries start from the bodies' words: a load from the files tokenises them as it reads
    // for the index the cache keeps. Without a cache only the query's words are counted, as the
    // load reads each file (`TextRecall::open_for`): no term table, no second read.
    let parsed = folio_core::recall::Query::parse(&query);
    let words = folio_core::recall::text::TextRecall::query_words(&parsed.text);
    let reads = match (a.text, g.cache.is_some()) {
        (true, true) => Reads::EntitiesAndTerms,
        (true, false) => Reads::EntitiesCountingWords(&words),
        (false, _) => Reads::Entities,
    };
    let store = super::common::one_shot(open_store_reading(g, path.as_deref(), reads)?);
    // `has:lint` needs the lint engine's findings, the same ones the TUI marks.
    let flags = if parsed.has_lint {
        let config = folio_core::store::lint::LintConfig::load(&store.root, store.kind())?;
        let profiles = || folio_core::store::keep::cache::profiles::open(g.cache.as_ref(), &store).0;
        folio_core::recall::lint_flags(&store, &folio_core::store::lint::lint_with(&store, &config, &profiles))
    } else {
        Vec::new()
    };
    if a.text {
        let started = std::time::Instant::now();
        // The index from the persistent cache where the files are unchanged (never in the store).
        let (mut text, mut made) =
            folio_core::recall::text::TextRecall::open_for(g.cache.as_ref(), &store, &parsed.text);
        let mut built = started.elapsed();
        let mut hits = text.search(&store, &parsed, &flags, a.limit);
        // The cached index is read on demand: a part the query read past the checked ones may
        // have been damaged since (its CRC). Then the answer is not trusted; the index is built anew.
        if let Some(why) = text.index.damaged() {
            (text, made) = text.rebuilt(g.cache.as_ref(), &store, &why);
            built = started.elapsed();
            hits = text.search(&store, &parsed, &flags, a.limit);
        }
        for w in &made.warnings {
            eprintln!("folio: cache: {}", escape::line(w));
        }
        let index = &text.index;
        let cost = IndexCost {
            entities: index.len(),
            bytes: index.heap_bytes(),
            built,
            queried: started.elapsed() - built,
            tokenised: made.tokenised,
            reused: made.reused,
        };
        print_text_hits(&store, &query, &hits, a.json, &cost);
        return Ok(0);
    }
    let hits = folio_core::recall::recall_with(&store, &parsed, &flags, a.sections, a.limit);
    if a.json {
        let results: Vec<_> = hits
            .iter()
            .map(|h| {
                let e = store.entity(h.idx);
                let section = h.section.as_ref().map(|s| json!({"heading": s.heading, "line": s.line}));
                json!({"id": e.id, "path": e.path, "title": e.title, "kind": e.kind, "score": h.score, "section": section})
            })
            .collect();
        print_json(&json!({"query": query, "results": results}));
    } else {
        for h in &hits {
            let e = store.entity(h.idx);
            match &h.section {
                Some(s) => println!(
                    "{:>5}  {}:{}  {} › {}",
                    h.score,
                    escape::id(&e.id),
                    s.line,
                    escape::line(&e.title),
                    escape::line(&s.heading)
                ),
                None => println!("{:>5}  {}  {}", h.score, escape::id(&e.id), escape::line(&e.title)),
            }
        }
        if hits.is_empty() {
            eprintln!("no matches for `{}`", escape::line(&query));
        }
    }
    Ok(0)
}

/// What the text index cost this run (in JSON, so its size and speed can be checked on a store).
struct IndexCost {
    entities: usize,
    bytes: usize,
    built: std::time::Duration,
    queried: std::time::Duration,
    /// Entities read and tokenised for the index, and those whose postings came from the cache.
    tokenised: usize,
    reused: usize,
}

/// Full-text results: each with its matching lines, the query's words highlighted on a terminal
/// (byte ranges in JSON).
fn print_text_hits(
    store: &folio_core::store::Store,
    query: &str,
    hits: &[folio_core::recall::text::TextHit],
    json: bool,
    cost: &IndexCost,
) {
    if json {
        let results: Vec<_> = hits
            .iter()
            .map(|h| {
                let e = store.entity(h.idx);
                let lines: Vec<_> = h
                    .lines
                    .iter()
                    .map(|l| {
                        let marks: Vec<_> = l.marks.iter().map(|m| [m.start, m.end]).collect();
                        json!({"line": l.line, "text": l.text, "marks": marks})
                    })
                    .collect();
                json!({"id": e.id, "path": e.path, "title": e.title, "kind": e.kind, "score": h.score,
                       "fuzzy": h.fuzzy, "bm25": h.text, "lines": lines})
            })
            .collect();
        let index = json!({"entities": cost.entities, "bytes": cost.bytes,
                           "build_ms": cost.built.as_secs_f64() * 1e3, "query_ms": cost.queried.as_secs_f64() * 1e3,
                           "tokenised": cost.tokenised, "reused": cost.reused});
        print_json(&json!({"query": query, "results": results, "index": index}));
        return;
    }
    let color = super::lint::colour_wanted();
    for h in hits {
        let e = store.entity(h.idx);
        println!("{:>5}  {}  {}", h.score, escape::id(&e.id), escape::line(&e.title));
        for l in &h.lines {
            let mut shown = String::new();
            let mut at = 0;
            for m in &l.marks {
                shown.push_str(&escape::line(&l.text[at..m.start]));
                let word = escape::line(&l.text[m.clone()]);
                if color {
                    shown.push_str(&format!("\x1b[1;33m{word}\x1b[0m"));
                } else {
                    shown.push_str(&word);
                }
                at = m.end;
            }
            shown.push_str(&escape::line(&l.text[at..]));
            println!("       {:>5}: {}", l.line, shown.trim());
        }
    }
    if hits.is_empty() {
        eprintln!("no matches for `{}`", escape::line(query));
    }
}
