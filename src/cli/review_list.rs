//! `folio review [PATH] list`: the review inbox written as text or JSON, each item rendered from
//! the entity, its facts and its findings as it is listed (`store::review::listing`).
use std::io::Write;

use super::common::{Global, open_store_as_is_reading};
use super::escape;
use folio_core::store::Reads;
use folio_core::store::review::filter::Filter;
use folio_core::store::review::group::{Grouping, grouped};
use folio_core::store::review::listing::Listing;
use folio_core::store::review::queue;

pub fn list(
    g: &Global,
    path: Option<&std::path::Path>,
    as_json: bool,
    filter: Option<&str>,
    group: Option<Grouping>,
) -> anyhow::Result<u8> {
    use folio_core::store::keep::cache::hashes;
    use folio_core::store::lint::LintConfig;
    let filter_text = filter.unwrap_or("");
    let filter = Filter::parse(filter_text).map_err(anyhow::Error::msg)?;
    let cache = g.cache.as_ref();
    // The inbox lints with every rule its config leaves on and hashes every queued text: a load
    // from the files makes the content rules' profiles (as for `folio lint`) and takes each
    // entity's text facts while it holds each file, rather than reading every file twice more.
    let wants_bodies = |root: &std::path::Path, kind| LintConfig::load(root, kind).map_or(true, |c| c.reads_bodies());
    let reads = Reads::EntitiesForInbox(&wants_bodies);
    // An unchanged cached store opens without its links, which the inbox never reads, when
    // lint's memo answers for them; else (or when the memo turns out not to) it opens whole.
    // Its listing for this very request, kept from an earlier run, answers before it is
    // decoded (`inbox_memo`).
    let request = format!("list json={as_json} group={} filter={filter_text}", group.map_or("-", Grouping::name));
    let lean = cache.map(|c| c.for_inbox().asking(request));
    let leaning = Global { dialect: g.dialect, demo: g.demo, cache: lean.clone(), bundle: g.bundle.clone() };
    let store = open_store_as_is_reading(&leaning, path, reads)?;
    if let Some(listing) = lean.as_ref().and_then(|c| c.inbox_answer()) {
        let mut out = std::io::stdout().lock();
        // As the listing's own writes: a closed pipe ends a JSON listing, not the command.
        let written = out.write_all(listing).and_then(|()| out.flush());
        return if as_json { Ok(0) } else { written.map(|()| 0).map_err(Into::into) };
    }
    let (root, kind) = (store.root.clone(), store.kind());
    let (linted, keeping) = match lean.filter(|c| c.lean_digest().is_some()) {
        Some(lean) => match hashes::lint_lean(&lean, store) {
            Some(linted) => (linted, lean.inbox_keepable().then_some(lean)),
            None => (hashes::lint_whole(cache, open_store_as_is_reading(g, path, reads)?), None),
        },
        None => (hashes::lint_whole(cache, store), None),
    };
    // Items are built as they are written (`Listing`), not held: the inbox of a large store is
    // 100k items.
    let (written, spent) = hashes::list_linted(cache, linted, &filter, |listing, warnings| {
        for w in warnings {
            eprintln!("folio: cache: {}", super::escape::line(w));
        }
        // Kept only when nothing needed saying: a listing with warnings is made again.
        let copy = keeping.as_ref().filter(|_| warnings.is_empty()).map(|_| Vec::new());
        let mut out = Copying { out: std::io::stdout().lock(), copy };
        let written = write_listing(listing, as_json, group, &mut out);
        (written, out.copy)
    });
    // The process ends here: the store, the lint report and the facts go with it rather than
    // being freed allocation by allocation (a tenth of the listing's time at 100k entities).
    std::mem::forget(spent);
    let (written, copy) = written;
    match written {
        Ok(()) => {
            if let (Some(lean), Some(copy)) = (keeping, copy)
                && let Err(e) = folio_core::store::keep::cache::inbox_memo::keep(&lean, &root, kind, &copy)
            {
                eprintln!("folio: cache: {}", super::escape::line(&e));
            }
        }
        // As `print_json` does: a failed write (a closed pipe) ends the output, not the command.
        Err(_) if as_json => {}
        Err(e) => return Err(e.into()),
    }
    Ok(0)
}

/// The listing's output, and a copy of every byte written when it is to be kept.
struct Copying<W> {
    out: W,
    copy: Option<Vec<u8>>,
}

impl<W: Write> Write for Copying<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf).inspect_err(|_| self.copy = None)?;
        if let Some(copy) = &mut self.copy {
            copy.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush().inspect_err(|_| self.copy = None)
    }
}

fn write_listing(l: &Listing<'_>, as_json: bool, group: Option<Grouping>, out: &mut impl Write) -> std::io::Result<()> {
    let held = group.map(|_| l.collect());
    let refs: Option<Vec<&queue::QueueItem>> = held.as_ref().map(|h| h.iter().collect());
    let groups = group.zip(refs.as_deref()).map(|(by, refs)| grouped(refs, by));
    if as_json {
        return write_listing_json(l, group.zip(groups.as_deref()), out);
    }
    // One write per buffer, not per line: the inbox of a large store is 100k lines.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    if !l.is_empty() {
        writeln!(out, "{}", queue::counts_text(l.counts()))?;
    }
    let Some(groups) = groups else {
        // A `Vec` takes every write: rendering cannot fail.
        l.lines_rendered(|i, text| drop(print_item(text, i)), |line| out.write_all(line))?;
        writeln!(out, "{} awaiting review", l.len())?;
        return out.flush();
    };
    for (key, members) in &groups {
        writeln!(out, "== {} ({})", escape::line(key), crate::store::model::count::count(members.len(), "item"))?;
        for i in members {
            print_item(&mut out, i.line())?;
        }
    }
    writeln!(out, "{} awaiting review in {}", l.len(), crate::store::model::count::count(groups.len(), "group"))?;
    out.flush()
}

/// The inbox gathered by author or agent run: each group's key and members.
type Groups<'a> = [(String, Vec<&'a queue::QueueItem>)];

/// `review list --json`: the count, the reasons' counts, the items (and the groups), each item
/// written from its view as it is listed rather than built and serialized (issue 44); the
/// bytes `print_json` wrote of the same document.
fn write_listing_json(
    l: &Listing<'_>,
    group: Option<(Grouping, &Groups<'_>)>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let out = std::io::BufWriter::with_capacity(1 << 16, out);
    let mut j = super::pretty_json::PrettyJson::new(out);
    j.begin_object();
    j.key("count");
    j.u64(l.len() as u64);
    j.key("reasons");
    j.begin_object();
    for (r, c) in l.counts() {
        j.key(r.code());
        j.u64(*c as u64);
    }
    j.end_object();
    j.key("items");
    j.begin_array();
    // Each item rendered apart (on both cores), two deep: in the object, in `items`.
    let render = |i: queue::ItemView<'_>, text: &mut Vec<u8>| {
        let mut item = super::pretty_json::PrettyJson::nested(std::mem::take(text), 2);
        write_item(&mut item, &i);
        *text = item.into_buf();
    };
    l.views_rendered(render, |item| {
        j.element();
        j.raw(item);
        j.write_if_full()
    })?;
    j.end_array();
    if let Some((by, groups)) = group {
        j.key("group_by");
        j.str(by.name());
        j.key("groups");
        j.begin_array();
        for (key, members) in groups {
            j.element();
            j.begin_object();
            j.key("key");
            j.str(key);
            j.key("count");
            j.u64(members.len() as u64);
            j.key("ids");
            j.begin_array();
            for m in members {
                j.element();
                j.str(&m.id);
            }
            j.end_array();
            j.end_object();
            j.write_if_full()?;
        }
        j.end_array();
    }
    j.end_object();
    j.finish().map(drop)
}

/// One item's fields, in `QueueItem`'s order and with its serde attributes (`session` and
/// `verdicts` left out when empty).
fn write_item<W: Write>(j: &mut super::pretty_json::PrettyJson<W>, i: &queue::ItemView<'_>) {
    j.begin_object();
    j.key("id");
    j.str(i.id);
    j.key("title");
    j.str(i.title);
    j.key("path");
    j.str(i.path);
    j.key("kind");
    j.opt_str(i.kind);
    j.key("status");
    j.opt_str(i.status);
    j.key("reasons");
    j.begin_array();
    for r in i.reasons {
        j.element();
        j.str(r.code());
    }
    j.end_array();
    j.key("age_days");
    match i.age_days {
        Some(d) => j.i64(d),
        None => j.null(),
    }
    j.key("author");
    j.opt_str(i.author);
    if let Some(session) = i.session {
        j.key("session");
        j.str(session);
    }
    j.key("sources");
    j.u64(i.sources as u64);
    j.key("evidence");
    j.u64(i.evidence);
    j.key("confidence");
    match i.confidence {
        Some(c) => j.f64(c),
        None => j.null(),
    }
    j.key("findings");
    j.begin_array();
    let _ = i.findings.try_each(|pieces| {
        j.element();
        j.str_pieces(pieces);
        Ok::<_, ()>(())
    });
    j.end_array();
    j.key("hidden_content");
    j.bool(i.hidden_content);
    j.key("priority");
    j.u64(u64::from(i.priority));
    j.key("hash");
    j.str(i.hash);
    if !i.verdicts.is_empty() {
        j.key("verdicts");
        j.begin_array();
        for v in i.verdicts {
            j.element();
            j.str(v);
        }
        j.end_array();
    }
    j.key("approved_hash");
    j.opt_str(i.approved_hash);
    j.end_object();
}

fn print_item(out: &mut impl Write, i: queue::Line<'_>) -> std::io::Result<()> {
    // Written piece by piece: the inbox of a large store is 100k lines, each once allocated
    // several times over when built as strings first.
    write!(out, "{}  [", escape::id(i.id))?;
    for (n, r) in i.reasons.iter().enumerate() {
        if n > 0 {
            out.write_all(b", ")?;
        }
        out.write_all(r.code().as_bytes())?;
    }
    write!(out, "]  {}  ", escape::line(i.kind.unwrap_or("-")))?;
    match i.age_days {
        Some(d) => write!(out, "{d}d")?,
        None => out.write_all(b"-")?,
    }
    let hidden = if i.hidden_content { "  HIDDEN CONTENT" } else { "" };
    writeln!(
        out,
        "  by {}  sources {} evidence {}  findings {}{hidden}",
        escape::line(i.author.unwrap_or("-")),
        i.sources,
        i.evidence,
        i.findings
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Text with controls, quotes, DEL, C1, bidi and zero-width characters among the plain.
    const TEXT: &str =
        "(\\PC|[\u{0}-\u{1f}\"\\\\\u{7f}-\u{9f}\u{200b}-\u{200f}\u{202a}-\u{202e}\u{2066}\u{feff}\u{2014}]){0,12}";

    fn item() -> impl Strategy<Value = queue::QueueItem> {
        let texts = (TEXT, TEXT, TEXT, proptest::option::of(TEXT), proptest::option::of(TEXT), TEXT);
        let more = (proptest::option::of(TEXT), proptest::option::of(TEXT), proptest::option::of(TEXT));
        let lists = (
            proptest::collection::vec(proptest::sample::select(queue::ALL.to_vec()), 0..4),
            proptest::collection::vec(TEXT, 0..3),
            proptest::collection::vec(TEXT, 0..3),
        );
        let numbers = (
            proptest::option::of(any::<i64>()),
            any::<usize>(),
            any::<u64>(),
            proptest::option::of(any::<f64>()),
            any::<bool>(),
            any::<u8>(),
        );
        (texts, more, lists, numbers).prop_map(
            |(
                (id, title, path, kind, status, hash),
                (author, session, approved_hash),
                (reasons, findings, verdicts),
                (age_days, sources, evidence, confidence, hidden_content, priority),
            )| queue::QueueItem {
                id,
                title,
                path,
                kind,
                status,
                reasons,
                age_days,
                author,
                session,
                sources,
                evidence,
                confidence,
                findings,
                hidden_content,
                priority,
                hash,
                verdicts,
                approved_hash,
                ..Default::default()
            },
        )
    }

    proptest! {
        /// An item written from its view is the item as serde serialized it (`print_json`), and
        /// so is one rendered apart (`PrettyJson::nested`) and put in (`raw`), as the listing does.
        #[test]
        fn an_item_is_written_as_serde_wrote_it(items in proptest::collection::vec(item(), 0..4)) {
            let mut w = escape::JsonWriter::new(Vec::new());
            serde_json::to_writer_pretty(&mut w, &items).unwrap();
            w.write_all(b"\n").unwrap();
            w.flush().unwrap();
            let mut j = super::super::pretty_json::PrettyJson::new(Vec::new());
            j.begin_array();
            for i in &items {
                j.element();
                write_item(&mut j, &i.view());
            }
            j.end_array();
            let hand = String::from_utf8(j.finish().unwrap()).unwrap();
            let mut j = super::super::pretty_json::PrettyJson::new(Vec::new());
            j.begin_array();
            for i in &items {
                let mut apart = super::super::pretty_json::PrettyJson::nested(Vec::new(), 1);
                write_item(&mut apart, &i.view());
                j.element();
                j.raw(&apart.into_buf());
            }
            j.end_array();
            let put_in = String::from_utf8(j.finish().unwrap()).unwrap();
            let serde = String::from_utf8(w.into_inner()).unwrap();
            prop_assert_eq!(&hand, &serde);
            prop_assert_eq!(put_in, serde);
        }
    }
}
