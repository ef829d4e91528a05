//! Entity files held in memory (a database's snapshot) read as the loader reads a folder's:
//! the texts are in hand, so nothing is opened, and a dialect that already made a file's
//! entities (`Dialect::held_entities`) hands them over.
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::{Bodies, LoadProgress, Read, finish_entity, parse_read_with, pass_bodies, walk_threads};
use crate::store::dialect::{Dialect, SourceFile};
use crate::store::model::entity::{Entity, Problem, rule};
use crate::store::model::lines::LineIndex;
use crate::store::model::shared_values::SharedValues;
use crate::store::read::content::{Part, Tokeniser};

/// Entity files held in memory given with their texts (a refresh of a few,
/// `Dialect::memory_file`), parsed as `read_entities` parses them (unsorted).
pub fn read_held(files: &[(String, String)], dialect: &dyn Dialect) -> Vec<Entity> {
    files
        .par_iter()
        .map_init(SharedValues::default, |values, (rel, text)| read_in_memory(rel, Some(text), dialect, values, None))
        .flatten_iter()
        .collect()
}

/// The entity file `rel` held in memory (`Dialect::memory_files`), parsed as `read_one`
/// parses a file of the same bytes; a file not there any more is unreadable, as on disk.
pub(super) fn read_in_memory(
    rel: &str,
    text: Option<&str>,
    dialect: &dyn Dialect,
    values: &mut SharedValues,
    terms: Option<&mut Tokeniser>,
) -> Vec<Entity> {
    if let Some(t) = text
        && let Some(held) = dialect.held_entities(rel, t)
    {
        if let Some(terms) = terms {
            pass_bodies(&held, t, true, Bodies::Tokenise(terms), &mut |_| None);
        }
        return held;
    }
    let read = match text {
        Some(t) => Read {
            bytes: t.as_bytes(),
            problems: Vec::new(),
            size: t.len() as u64,
            mtime: 0,
            readable: true,
            whole: true,
        },
        None => Read {
            bytes: &[],
            problems: vec![Problem::new(rule::UNREADABLE, "cannot read: no longer in the store", 1, 1)],
            size: 0,
            mtime: 0,
            readable: false,
            whole: false,
        },
    };
    parse_read_with(rel, read, &mut |f| dialect.parse(f), values, terms.map(Bodies::Tokenise), None, &mut |_| None)
}

/// The entities of every file held in memory, parsed on every core in chunks, and each
/// chunk's terms with where its entities start (as the walker threads give them).
pub(super) fn read_memory(
    files: &crate::store::dialect::MemoryFiles,
    dialect: &dyn Dialect,
    progress: Option<&LoadProgress>,
    terms: bool,
    profiling: bool,
) -> (Vec<Arc<Entity>>, Vec<(usize, Part)>) {
    if let Some(p) = progress {
        p.total.fetch_add(files.len(), Ordering::Relaxed);
    }
    let all: Vec<(&String, &String)> = files.iter().collect();
    let chunk = all.len().div_ceil(walk_threads().max(1) * 4).max(64);
    let chunks: Vec<(Vec<Arc<Entity>>, Option<Part>)> = all
        .par_chunks(chunk)
        .map(|files| {
            let mut values = SharedValues::default();
            let mut tokens = terms.then(|| if profiling { Tokeniser::profiling() } else { Tokeniser::default() });
            let mut out = Vec::with_capacity(files.len());
            for (rel, text) in files {
                let read = read_in_memory(rel, Some(text), dialect, &mut values, tokens.as_mut());
                out.extend(read.into_iter().map(Arc::new));
                if let Some(p) = progress {
                    p.done.fetch_add(1, Ordering::Relaxed);
                }
            }
            (out, tokens.map(Tokeniser::into_part))
        })
        .collect();
    let mut entities = Vec::with_capacity(all.len());
    let mut parts = Vec::new();
    for (mine, part) in chunks {
        if let Some(part) = part {
            parts.push((entities.len(), part));
        }
        entities.extend(mine);
    }
    (entities, parts)
}

/// An entity file held in memory parsed by `parse` instead of its dialect's `parse` (a
/// dialect that already knows what parsing it gives: `Dialect::held_entities`), with
/// everything else the loader does to a file's entities done as for any file.
pub fn parse_held_with(
    rel: &str,
    text: &str,
    parse: &mut dyn FnMut(&SourceFile) -> Vec<Entity>,
    values: &mut SharedValues,
) -> Vec<Entity> {
    parse_text_with(rel, text, Vec::new(), (text.len() as u64, 0), parse, values)
}

/// As `parse_read_with` for a whole, readable text already in memory: neither copied nor
/// checked for UTF-8 again (a first open of a database hands 100k texts here).
fn parse_text_with(
    rel: &str,
    text: &str,
    problems: Vec<Problem>,
    (size, mtime): (u64, i64),
    parse: &mut dyn FnMut(&SourceFile) -> Vec<Entity>,
    values: &mut SharedValues,
) -> Vec<Entity> {
    // A text with NUL bytes is binary content: read as any file's bytes are.
    if memchr::memchr(0, &text.as_bytes()[..text.len().min(8192)]).is_some() {
        let read = Read { bytes: text.as_bytes(), problems, size, mtime, readable: true, whole: true };
        return parse_read_with(rel, read, parse, values, None, None, &mut |_| None);
    }
    let lines = LineIndex::new(text);
    let source = SourceFile { rel, text, lines: &lines, problems: &problems, parseable: true };
    let mut entities = parse(&source);
    for e in &mut entities {
        finish_entity(e, text, &lines, (size, mtime), values);
    }
    entities
}
