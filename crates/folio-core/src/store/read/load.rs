//! Walking a store root and reading every entity file in parallel.
//!
//! Loading never fails because of one file: whatever cannot be read becomes a problem on the
//! entity (or a skipped file), and nothing is ever written.
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::content::{Content, Part, Tokeniser};
use super::content_words::Profile;
use super::query_words::{QueryWords, WordCounts};
use super::{body_text, fsio, hostile};
use crate::store::dialect::{Dialect, FileRole, SourceFile, StoreWarning};
use crate::store::model::entity::{Entity, Problem, rule};
use crate::store::model::lines::LineIndex;
use crate::store::model::shared_values::SharedValues;

pub use crate::store::read::fsio::MAX_READ;
pub use crate::store::read::walk::{FoundFile, walk};
use crate::store::read::walk::{Walked, classify, walker};

mod memory;
pub use memory::{parse_held_with, read_held};
use memory::{read_in_memory, read_memory};

/// What `walk_and_read` found: entities sorted by path and line, the other files sorted by
/// path, and the folders that could not be listed.
#[derive(Default)]
pub struct Loaded {
    /// Shared with refreshed copies of the store (`Store::entities`).
    pub entities: Vec<Arc<Entity>>,
    pub other_files: Vec<FoundFile>,
    pub warnings: Vec<StoreWarning>,
    /// The entities' term table, when asked (`Reads::EntitiesAndTerms`).
    pub terms: Option<Content>,
    /// The entities' near-duplicate profiles, in `entities`' order, when asked
    /// (`Reads::EntitiesAndProfiles`).
    pub profiles: Option<Vec<Profile>>,
    /// Each walker thread's terms, with where its entities start in `entities` before the sort.
    parts: Vec<(usize, Part)>,
    /// Each entity's counts of a query's words, in `entities`' order, when asked
    /// (`Reads::EntitiesCountingWords`).
    pub word_counts: Option<Vec<WordCounts>>,
    /// What `FromText` made of each entity, in `entities`' order, when one was given.
    pub made: Option<Vec<Made>>,
}

/// Something a layer above the loader makes of an entity and its file's text while the loader
/// holds it (the review inbox's text facts: `Reads::EntitiesForInbox`), so that the file is not
/// read again for it; `None` where it makes nothing.
pub type FromText<'w> = &'w (dyn Fn(&Entity, &str) -> Made + Sync);

/// What `FromText` made of one entity.
pub type Made = Option<Box<dyn std::any::Any + Send>>;

/// What the load does with each entity's description and body while it holds the file's
/// bytes, besides parsing: nothing, tokenise them into the term table, or count a query's
/// words in them.
#[derive(Clone, Copy)]
pub enum BodyPass<'w> {
    None,
    Terms,
    Profiles,
    CountWords(&'w [String]),
}

/// `walk` and `read_entities` in one pass: each walker thread reads and parses the entity
/// files it finds, so reading overlaps listing folders (as ripgrep does) and nothing waits
/// for the whole tree to be listed. A sequential walk before the parallel read would run on
/// the main thread alone, with every core but one idle (docs/benchmarks.md, "Load figures").
/// Each thread also does `pass` with the bodies of what it reads (`Loaded::terms`,
/// `Loaded::word_counts`), and `from_text` with each entity and its file's text
/// (`Loaded::made`; entities held in memory are left to whoever reads them later).
pub fn walk_and_read(
    root: &Path,
    dialect: &dyn Dialect,
    progress: Option<&LoadProgress>,
    pass: BodyPass<'_>,
    from_text: Option<FromText<'_>>,
) -> Loaded {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let shared = Mutex::new(Loaded::default());
    // A store whose entity files are held in memory (a database's snapshot): the folder is
    // walked for its other files only, and the entities are parsed from memory meanwhile
    // (their query words are then counted after the load, as `TextRecall::open_for` reads them).
    let memory = dialect.memory_files();
    let in_memory = memory.is_some();
    let query = match pass {
        BodyPass::CountWords(words) if !in_memory => Some(QueryWords::new(words)),
        _ => None,
    };
    let terms = matches!(pass, BodyPass::Terms | BodyPass::Profiles);
    let profiling = matches!(pass, BodyPass::Profiles);
    let mut builder = ReaderBuilder {
        root,
        canonical_root: &canonical_root,
        dialect,
        progress,
        shared: &shared,
        terms,
        profiling,
        query: query.as_ref(),
        from_text,
        in_memory,
    };
    let from_memory = rayon::join(
        || walker(root).threads(walk_threads()).build_parallel().visit(&mut builder),
        || memory.as_deref().map(|files| read_memory(files, dialect, progress, terms, profiling)),
    )
    .1;
    let mut loaded = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((entities, parts)) = from_memory {
        let start = loaded.entities.len();
        if let Some(made) = loaded.made.as_mut() {
            made.resize_with(start + entities.len(), || None);
        }
        loaded.entities.extend(entities);
        loaded.parts.extend(parts.into_iter().map(|(at, part)| (start + at, part)));
    }
    let (entities, order) = sort_entities(std::mem::take(&mut loaded.entities));
    loaded.entities = entities;
    if profiling {
        loaded.profiles = Some(profiles_in_order(std::mem::take(&mut loaded.parts), &order));
    } else if terms {
        loaded.terms = Some(terms_in_order(std::mem::take(&mut loaded.parts), &order));
    }
    if let Some(mut counted) = loaded.word_counts.take() {
        loaded.word_counts = Some(order.iter().map(|&i| std::mem::take(&mut counted[i as usize])).collect());
    }
    if let Some(mut made) = loaded.made.take() {
        loaded.made = Some(order.iter().map(|&i| made.get_mut(i as usize).and_then(Option::take)).collect());
    }
    loaded.other_files.sort_by(|a, b| a.rel.cmp(&b.rel));
    loaded.warnings.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.message.cmp(&b.message)));
    loaded
}

/// Four walker threads per core: they block on `read` when the page cache is cold, and more
/// reads in flight keep the disk busy, while a warm load is no slower for them
/// (docs/benchmarks.md, "Load figures").
fn walk_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).saturating_mul(4).min(16)
}

struct ReaderBuilder<'s> {
    root: &'s Path,
    canonical_root: &'s Path,
    dialect: &'s dyn Dialect,
    progress: Option<&'s LoadProgress>,
    shared: &'s Mutex<Loaded>,
    terms: bool,
    /// The tokenisers make profiles, not terms (`BodyPass::Profiles`).
    profiling: bool,
    query: Option<&'s QueryWords<'s>>,
    from_text: Option<FromText<'s>>,
    /// The entity files are in memory (`Dialect::memory_files`): those in the folder are not read.
    in_memory: bool,
}

/// The walker threads' profiles in the entities' sorted order: `order[j]` is the place entity
/// `j` had before the sort, in the threads' entities laid end to end.
fn profiles_in_order(mut parts: Vec<(usize, Part)>, order: &[u32]) -> Vec<Profile> {
    parts.sort_by_key(|&(start, _)| start);
    let mut end_to_end: Vec<Option<Profile>> =
        parts.into_iter().flat_map(|(_, part)| part.into_profiles()).map(Some).collect();
    order.iter().map(|&i| end_to_end.get_mut(i as usize).and_then(Option::take).unwrap_or_default()).collect()
}

/// The walker threads' terms as one table in the entities' sorted order: `order[j]` is the
/// place entity `j` had before the sort, in the threads' entities laid end to end.
fn terms_in_order(mut parts: Vec<(usize, Part)>, order: &[u32]) -> Content {
    parts.sort_by_key(|&(start, _)| start);
    let starts: Vec<usize> = parts.iter().map(|&(start, _)| start).collect();
    let at = order
        .iter()
        .map(|&i| {
            let p = starts.partition_point(|&start| start <= i as usize) - 1;
            (p as u32, (i as usize - starts[p]) as u32)
        })
        .collect();
    Content::from_parts(parts.into_iter().map(|(_, part)| part).collect(), at)
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for ReaderBuilder<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Reader {
            root: self.root,
            canonical_root: self.canonical_root,
            dialect: self.dialect,
            progress: self.progress,
            shared: self.shared,
            mine: Loaded::default(),
            opener: fsio::FolderOpener::default(),
            buf: Vec::new(),
            values: SharedValues::default(),
            terms: self.terms.then(|| if self.profiling { Tokeniser::profiling() } else { Tokeniser::default() }),
            counting: self.query.map(|q| Counting { query: q, scratch: String::new(), counted: Vec::new() }),
            making: self.from_text.map(|f| (f, Vec::new())),
            in_memory: self.in_memory,
        })
    }
}

/// One walker thread: collects what it reads and hands it over when the walk ends.
struct Reader<'s> {
    root: &'s Path,
    canonical_root: &'s Path,
    dialect: &'s dyn Dialect,
    progress: Option<&'s LoadProgress>,
    shared: &'s Mutex<Loaded>,
    mine: Loaded,
    /// The walker hands a folder's files to one thread one after another.
    opener: fsio::FolderOpener,
    /// The bytes of the file being read, kept from file to file (`read_one`).
    buf: Vec<u8>,
    values: SharedValues,
    /// The bodies of `mine.entities` as words, in the same order, when asked.
    terms: Option<Tokeniser>,
    /// The counts of a query's words in `mine.entities`, in the same order, when asked.
    counting: Option<Counting<'s>>,
    /// What `FromText` made of `mine.entities`, in the same order, when one was given.
    making: Option<(FromText<'s>, Vec<Made>)>,
    in_memory: bool,
}

/// One walker thread's counts of a query's words (`BodyPass::CountWords`).
struct Counting<'s> {
    query: &'s QueryWords<'s>,
    scratch: String,
    counted: Vec<WordCounts>,
}

/// What `read_one` does with each entity's description and body besides parsing.
enum Bodies<'a, 's> {
    Tokenise(&'a mut Tokeniser),
    Count(&'a mut Counting<'s>),
}

impl ignore::ParallelVisitor for Reader<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        match classify(self.root, self.canonical_root, self.dialect, entry) {
            Walked::File(f, _) if f.role == FileRole::Entity && self.in_memory => {}
            Walked::File(f, path) if f.role == FileRole::Entity => {
                if let Some(p) = self.progress {
                    p.total.fetch_add(1, Ordering::Relaxed);
                }
                let bodies = match (self.terms.as_mut(), self.counting.as_mut()) {
                    (Some(t), _) => Some(Bodies::Tokenise(t)),
                    (None, Some(c)) => Some(Bodies::Count(c)),
                    (None, None) => None,
                };
                let making = self.making.as_mut().map(|(f, made)| (*f, made));
                let read = read_one(
                    &path,
                    &f,
                    self.dialect,
                    (&mut self.opener, &mut self.buf),
                    &mut self.values,
                    bodies,
                    making,
                );
                self.mine.entities.extend(read.into_iter().map(Arc::new));
                if let Some(p) = self.progress {
                    p.done.fetch_add(1, Ordering::Relaxed);
                }
            }
            Walked::File(f, _) => self.mine.other_files.push(f),
            Walked::Warning(w) => self.mine.warnings.push(w),
            Walked::Skip => {}
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        let mut all = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = self.terms.take() {
            let start = all.entities.len();
            all.parts.push((start, t.into_part()));
        }
        if let Some(c) = self.counting.take() {
            // In the same order as the entities appended next.
            all.word_counts.get_or_insert_with(Vec::new).extend(c.counted);
        }
        if let Some((_, made)) = self.making.take() {
            all.made.get_or_insert_with(Vec::new).extend(made);
        }
        all.entities.append(&mut self.mine.entities);
        all.other_files.append(&mut self.mine.other_files);
        all.warnings.append(&mut self.mine.warnings);
    }
}

/// Counters a caller can watch while a load runs on another thread.
#[derive(Debug, Default)]
pub struct LoadProgress {
    /// Entity files found by the walk so far (it still grows while folders are listed).
    pub total: AtomicUsize,
    /// Entity files read and parsed so far.
    pub done: AtomicUsize,
}

/// Read and parse every entity file, in parallel; entities come back sorted by path and line.
pub fn read_entities(
    root: &Path,
    files: &[FoundFile],
    dialect: &dyn Dialect,
    progress: Option<&LoadProgress>,
) -> Vec<Entity> {
    if let Some(p) = progress {
        p.total.store(files.iter().filter(|f| f.role == FileRole::Entity).count(), Ordering::Relaxed);
    }
    let memory = dialect.memory_files();
    let mut entities: Vec<Entity> = files
        .par_iter()
        .filter(|f| f.role == FileRole::Entity)
        .map_init(<(fsio::FolderOpener, Vec<u8>, SharedValues)>::default, |(opener, buf, values), f| {
            let parsed = match memory.as_deref() {
                Some(m) => read_in_memory(&f.rel, m.get(&f.rel).map(String::as_str), dialect, values, None),
                None => read_one(&root.join(&f.rel), f, dialect, (opener, buf), values, None, None),
            };
            if let Some(p) = progress {
                p.done.fetch_add(1, Ordering::Relaxed);
            }
            parsed
        })
        .flatten_iter()
        .collect();
    entities.par_sort_unstable_by(entity_order);
    entities
}

/// `entities` in `entity_order`. The sort compares a compact key first, the path's first
/// `SORT_PREFIX` bytes, and reaches into the entities only when those tie: comparing through
/// each `Arc` to a path scattered over the heap waits on two cache misses a side
/// (docs/benchmarks.md, "Load figures").
/// Unstable but in parallel; the order is unique, so the result is the same. Also each sorted
/// entity's place before the sort.
fn sort_entities(entities: Vec<Arc<Entity>>) -> (Vec<Arc<Entity>>, Vec<u32>) {
    let mut keys: Vec<([u8; SORT_PREFIX], u32)> = entities
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            crate::store::model::prefetch::entity_ahead(&entities, i, |e| e.path.as_str());
            // Zero-padded: file names hold no NUL, so a shorter path sorts first, as in `cmp`.
            let mut prefix = [0u8; SORT_PREFIX];
            let n = e.path.len().min(SORT_PREFIX);
            prefix[..n].copy_from_slice(&e.path.as_bytes()[..n]);
            (prefix, i as u32)
        })
        .collect();
    keys.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| entity_order(&entities[a.1 as usize], &entities[b.1 as usize]))
    });
    let mut slots: Vec<Option<Arc<Entity>>> = entities.into_iter().map(Some).collect();
    let sorted = keys.iter().filter_map(|&(_, i)| slots[i as usize].take()).collect();
    (sorted, keys.into_iter().map(|(_, i)| i).collect())
}

/// How much of each path the sort's keys hold: a folder and a title of several words
/// (`concepts/Active Anomaly 86295.md`) tie past 24 bytes, and the ties' comparisons through
/// the entities took half the sort (docs/benchmarks.md, "Forty-fourth session").
const SORT_PREFIX: usize = 40;

/// Entities in path order, then in the order they appear in their file (`span.start` tells
/// apart entries that share a line).
fn entity_order(a: &Entity, b: &Entity) -> std::cmp::Ordering {
    a.path.cmp(&b.path).then(a.line.cmp(&b.line)).then(a.span.start.cmp(&b.span.start))
}

/// Read and parse the entity file `found`, at `path` (the root joined with `found.rel`), and
/// tokenise its entities' descriptions and bodies, or count a query's words in them, as
/// `bodies` asks.
fn read_one(
    path: &Path,
    found: &FoundFile,
    dialect: &dyn Dialect,
    (opener, buf): (&mut fsio::FolderOpener, &mut Vec<u8>),
    values: &mut SharedValues,
    bodies: Option<Bodies<'_, '_>>,
    making: Option<(FromText<'_>, &mut Vec<Made>)>,
) -> Vec<Entity> {
    let mut problems = Vec::new();
    buf.clear();
    let mut size = 0;
    let mut mtime = 0;
    let mut readable = true;
    // The text is the file's bytes, every one of them: a body can be cut from it.
    let mut whole = false;
    if found.symlink_inside == Some(false) {
        problems.push(Problem::new(rule::LINK_ESCAPES_ROOT, "symlink points outside the store; not read", 0, 0));
        readable = false;
    } else {
        match read_with_metadata(path, opener, buf) {
            Ok((meta, truncated)) => {
                size = meta.len();
                mtime = fsio::mtime_ns(&meta);
                whole = !truncated;
                if truncated {
                    problems.push(Problem::new(
                        rule::TOO_LARGE,
                        format!("file is {size} bytes; only the first {MAX_READ} were read"),
                        1,
                        1,
                    ));
                }
            }
            Err(e) => {
                buf.clear();
                problems.push(Problem::new(rule::UNREADABLE, format!("cannot read: {e}"), 1, 1));
                readable = false;
            }
        }
    }
    let read = Read { bytes: buf, problems, size, mtime, readable, whole };
    let reread = &mut |e: &Entity| body_text::body_bytes_at(e, path, opener);
    let entities = parse_read_with(&found.rel, read, &mut |f| dialect.parse(f), values, bodies, making, reread);
    // A thread keeps the buffer of a typical file for the next one, not a multi-MB one's.
    if buf.capacity() > KEPT_BUFFER {
        *buf = Vec::new();
    }
    entities
}

/// The largest read buffer a walker thread keeps from one file to the next (`read_one`).
const KEPT_BUFFER: usize = 256 * 1024;

/// An entity file's bytes as read, and what reading them found.
struct Read<'b> {
    bytes: &'b [u8],
    problems: Vec<Problem>,
    size: u64,
    mtime: i64,
    readable: bool,
    /// The bytes are the whole file: a body can be cut from them.
    whole: bool,
}

/// What the loader does to each entity a file gave, whatever read it.
fn finish_entity(e: &mut Entity, text: &str, lines: &LineIndex, (size, mtime): (u64, i64), values: &mut SharedValues) {
    e.file_size = size;
    e.mtime_ns = mtime;
    flag_hostile(text, lines, e);
    // The lists grew by doubling (or from an iterator without an exact length): give the
    // slack back, as every entity is kept for the life of the store.
    e.shrink_to_fit();
    values.share(e);
}

/// Parse what was read of the file `rel`; `reread` reads an entity's body when it cannot be
/// cut from the bytes in hand.
fn parse_read_with(
    rel: &str,
    read: Read<'_>,
    parse: &mut dyn FnMut(&SourceFile) -> Vec<Entity>,
    values: &mut SharedValues,
    bodies: Option<Bodies<'_, '_>>,
    making: Option<(FromText<'_>, &mut Vec<Made>)>,
    reread: &mut dyn FnMut(&Entity) -> Option<body_text::RawBody<'static>>,
) -> Vec<Entity> {
    let Read { bytes, mut problems, size, mtime, mut readable, mut whole } = read;
    let probe = &bytes[..bytes.len().min(8192)];
    if readable && memchr::memchr(0, probe).is_some() {
        problems.push(Problem::new(rule::BINARY, "binary content (NUL bytes); not parsed", 1, 1));
        readable = false;
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(e) => {
            whole = false;
            let at = e.valid_up_to();
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let (line, col) = LineIndex::new(&lossy[..floor_char_boundary(&lossy, at)]).position(at.min(lossy.len()));
            let (line, col) = if lossy.is_char_boundary(at) { (line, col) } else { (line, 1) };
            if readable {
                problems.push(Problem::new(
                    rule::NON_UTF8,
                    format!("not valid UTF-8 (first bad byte at offset {at}); shown with replacement characters"),
                    line,
                    col,
                ));
            }
            std::borrow::Cow::Owned(lossy)
        }
    };
    let text: &str = if readable { &text } else { "" };
    let lines = LineIndex::new(text);
    let source = SourceFile { rel, text, lines: &lines, problems: &problems, parseable: readable };
    let mut entities = parse(&source);
    for e in &mut entities {
        finish_entity(e, text, &lines, (size, mtime), values);
    }
    if let Some(bodies) = bodies {
        pass_bodies(&entities, text, readable && whole, bodies, reread);
    }
    if let Some((from_text, made)) = making {
        // The text is what `Store::read_text` would read of a readable file: the same capped
        // bytes, with replacement characters where they are not UTF-8.
        made.extend(entities.iter().map(|e| if readable { from_text(e, text) } else { None }));
    }
    entities
}

/// `bodies` with the entities of one file (`text`; `whole`: its every byte, readable).
fn pass_bodies(
    entities: &[Entity],
    text: &str,
    whole: bool,
    mut bodies: Bodies<'_, '_>,
    reread: &mut dyn FnMut(&Entity) -> Option<body_text::RawBody<'static>>,
) {
    {
        for e in entities {
            // What `body_text::body_bytes` would read, cut from the text in hand when it is the
            // file's bytes (else read as it reads it).
            let cut = if whole { body_text::body_bytes_in(e, text) } else { None };
            let raw = cut.unwrap_or_else(|| reread(e));
            let body = raw.as_ref().map(|raw| raw.text());
            match &mut bodies {
                Bodies::Tokenise(t) => {
                    t.add(e.description.as_deref().unwrap_or_default());
                    if let Some(body) = &body {
                        t.add(body);
                    }
                    t.end_entity();
                }
                Bodies::Count(c) => {
                    let counted = c.query.count(e.description.as_deref(), body.as_deref(), &mut c.scratch);
                    c.counted.push(counted);
                }
            }
        }
    }
}

/// Read up to `MAX_READ` bytes and the file's metadata with one open and one `fstat`: the
/// buffer is sized from the metadata and exactly that many bytes are asked for, so a typical
/// file takes a single `read` (reading on to see the end of the file cost a second `read`
/// per file: 100k syscalls at 100k entities). Size, mtime and text come from the same moment;
/// a file an agent is still appending to is read as it was then, and the watcher sees the rest.
fn read_with_metadata(
    path: &Path,
    opener: &mut fsio::FolderOpener,
    bytes: &mut Vec<u8>,
) -> std::io::Result<(fs::Metadata, bool)> {
    use std::io::Read;
    let (file, meta) = opener.open_regular(path)?;
    if meta.len() == 0 {
        // A regular file that reports no size may still hold bytes (some network and FUSE
        // file systems): read to the end.
        file.take(MAX_READ + 1).read_to_end(bytes)?;
        let truncated = bytes.len() as u64 > MAX_READ;
        bytes.truncate(MAX_READ as usize);
        return Ok((meta, truncated));
    }
    let limit = meta.len().min(MAX_READ);
    bytes.reserve_exact(limit as usize);
    file.take(limit).read_to_end(bytes)?;
    let truncated = meta.len() > MAX_READ;
    Ok((meta, truncated))
}

/// Record hostile characters (escape sequences, bidi overrides…) inside the entity's span.
fn flag_hostile(text: &str, lines: &LineIndex, e: &mut Entity) {
    let span = e.span.start as usize..(e.span.end as usize).min(text.len());
    let Some(slice) = text.get(span.clone()) else { return };
    if let Some((at, c, n)) = hostile::scan(slice, 0) {
        // Zero-width characters alone (scraped docs carry hundreds) are invisible but cannot
        // reorder text or drive a terminal: a warning. Anything else is an error, named first.
        let (at, c) = if hostile::is_invisible_only(c) {
            hostile::first_dangerous(slice, at).unwrap_or((at, c))
        } else {
            (at, c)
        };
        let (line, col) = lines.position(span.start + at);
        let more = if n > 1 { format!(" ({n} in all)") } else { String::new() };
        let problem = if hostile::is_invisible_only(c) {
            Problem::new(
                rule::CONTROL_CHARS,
                format!(
                    "{} in the content{more}: invisible, it cannot hide text or drive a terminal, but it splits words a search looks for",
                    hostile::describe(c)
                ),
                line,
                col,
            )
            .with_severity(crate::store::model::entity::Severity::Warn)
        } else {
            Problem::new(
                rule::CONTROL_CHARS,
                format!("{} in the content{more}: it can hide text or drive a terminal", hostile::describe(c)),
                line,
                col,
            )
        };
        e.problems.push(problem);
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_sort_by_path_then_position_past_the_key_prefix() {
        let make = |path: &str, line: u32, start: u32| {
            Arc::new(Entity { path: path.into(), line, span: start..start + 1, ..Default::default() })
        };
        let entities = vec![
            make("a-very-long-shared-folder-name/z.md", 1, 0),
            make("a-very-long-shared-folder-name/b.md", 9, 50),
            make("a-very-long-shared-folder-name/b.md", 9, 40),
            make("a-very-long-shared-folder-name/b.md", 2, 10),
            make("a-very-long-shared-folder", 1, 0),
            make("b.md", 1, 0),
            make("a.md", 1, 0),
            make("a-very-long-shared-folder-name/b.m", 1, 0),
            make("é/ü.md", 1, 0),
            make("a-very-long-shared-folder-nam", 1, 0),
        ];
        let mut reference = entities.clone();
        reference.sort_by(|a, b| entity_order(a, b));
        let (sorted, order) = sort_entities(entities.clone());
        let key = |v: &[Arc<Entity>]| v.iter().map(|e| (e.path.clone(), e.line, e.span.start)).collect::<Vec<_>>();
        assert_eq!(key(&sorted), key(&reference));
        let before: Vec<Arc<Entity>> = order.iter().map(|&i| Arc::clone(&entities[i as usize])).collect();
        assert_eq!(key(&before), key(&sorted), "each sorted entity's place before the sort");
    }
}
