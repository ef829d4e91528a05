//! The reader's background work: an entity's body read (at most the preview's limit) and parsed,
//! its note embeds filled from the entities its links lead to.
use std::path::PathBuf;

use crate::app::model::Body;
use crate::markdown::doc;
use folio_core::store::dialect::MemoryFiles;
use folio_core::store::read::fsio;

/// Read the body and fill its embeds (a read that failed is answered as it is).
pub fn read(
    rel: &str,
    abs: &std::path::Path,
    (start, end): (u32, u32),
    limit: u64,
    embeds: &[EmbedSource],
    memory: Option<&MemoryFiles>,
) -> Result<Body, String> {
    let mut body = read_body_from(rel, abs, memory, start, end, limit);
    if let Ok(b) = body.as_mut() {
        fill_embeds(b, embeds, memory);
    }
    body
}

/// At most `cap` bytes of the entity file `rel`: from memory when the store holds its files
/// there (a database's snapshot), else from `abs`.
fn read_capped(rel: &str, abs: &std::path::Path, memory: Option<&MemoryFiles>, cap: u64) -> std::io::Result<Vec<u8>> {
    match memory {
        Some(files) => {
            let text = files.get(rel).ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
            Ok(text.as_bytes()[..text.len().min(cap as usize)].to_vec())
        }
        None => fsio::read_capped(abs, cap).map(|(bytes, _)| bytes),
    }
}

/// Where a link of the entity being read leads, for embeds to read it (resolved by the store
/// before the read: the worker does no link resolution).
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedSource {
    /// The link's target as written (`Incident#Timeline`).
    pub target: String,
    pub rel: String,
    pub abs: PathBuf,
    /// The body's byte range in the file.
    pub start: u32,
    pub end: u32,
}

/// An embedded note is read up to this much (a reader's box, not a second preview).
const EMBED_LIMIT: u64 = 64 * 1024;

/// Fill the note embeds of a body from the entities its links resolve to.
fn fill_embeds(body: &mut Body, sources: &[EmbedSource], memory: Option<&MemoryFiles>) {
    crate::markdown::embeds::fill(&mut body.doc, &mut |target: &str| {
        let Some(s) = sources.iter().find(|s| s.target == target) else {
            return Err("not a note in this store".to_string());
        };
        let end = s.end.min(s.start.saturating_add(EMBED_LIMIT as u32));
        let bytes = read_capped(&s.rel, &s.abs, memory, u64::from(end)).map_err(|e| format!("{}: {e}", s.rel))?;
        if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
            return Err(format!("{}: binary content; not shown", s.rel));
        }
        let from = (s.start as usize).min(bytes.len());
        let to = (end as usize).min(bytes.len()).max(from);
        Ok(String::from_utf8_lossy(&bytes[from..to]).into_owned())
    });
}

/// Read at most `limit` bytes of an entity's body and parse it.
pub fn read_body(rel: &str, abs: &std::path::Path, start: u32, end: u32, limit: u64) -> Result<Body, String> {
    read_body_from(rel, abs, None, start, end, limit)
}

/// `read_body`, from memory when the store holds its files there.
fn read_body_from(
    rel: &str,
    abs: &std::path::Path,
    memory: Option<&MemoryFiles>,
    start: u32,
    end: u32,
    limit: u64,
) -> Result<Body, String> {
    let cap = (end as u64).min(start as u64 + limit).max(start as u64);
    let bytes = read_capped(rel, abs, memory, cap).map_err(|e| format!("{rel}: {e}"))?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Ok(Body { doc: doc::parse(""), notice: Some(format!("{rel}: binary content; not shown")) });
    }
    let from = (start as usize).min(bytes.len());
    let to = (end as usize).min(bytes.len());
    let slice = &bytes[from..to.max(from)];
    let text = String::from_utf8_lossy(slice);
    let notice = (end as u64 - start as u64 > limit).then(|| {
        format!("large entity: only the first {} KiB of {} KiB are shown", limit / 1024, (end - start) / 1024)
    });
    Ok(Body { doc: doc::parse(&text), notice })
}
