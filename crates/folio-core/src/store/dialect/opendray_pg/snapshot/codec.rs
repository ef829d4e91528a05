//! The index file's bytes: its parts checked, its entries and tail read and written.
use super::*;

/// The index file's parts, each checked: the header, the index and the tail. Bytes past the
/// tail are an append that stopped before its header was written: nobody's.
pub(super) struct Parts<'a> {
    pub(super) header: Header,
    pub(super) body: &'a [u8],
    pub(super) tail: &'a [u8],
}

pub(super) fn parts(b: &[u8]) -> Result<Parts<'_>, &'static str> {
    let header = decode_header(b)?;
    let body_end = (HEADER as u64).checked_add(header.index_len).ok_or(BAD)?;
    let tail_end = body_end.checked_add(header.tail_len).ok_or(BAD)?;
    if (b.len() as u64) < tail_end {
        return Err("its index is cut short (torn or damaged)");
    }
    let body = &b[HEADER..body_end as usize];
    if crc32fast::hash(body) != header.index_crc {
        return Err("its index's checksum does not match its bytes (torn or damaged)");
    }
    let tail = &b[body_end as usize..tail_end as usize];
    if crc32fast::hash(tail) != header.tail_crc {
        return Err("its tail of changes does not match its checksum (torn or damaged)");
    }
    Ok(Parts { header, body, tail })
}

/// One entry as the index holds it, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Raw<'a> {
    pub id: &'a str,
    pub rel: &'a str,
    pub version: Version,
    pub(super) at: u64,
    pub(super) len: u32,
    pub(super) crc: u32,
}

impl Raw<'_> {
    pub(super) fn owned(&self) -> Entry {
        Entry { id: self.id.into(), version: self.version, rel: self.rel.into(), at: self.at, len: self.len, crc: self.crc }
    }
}

pub(super) fn raw_entry<'a>(r: &mut Reader<'a>, texts_end: u64) -> Result<Raw<'a>, &'static str> {
    let version = Version { xmin: r.u64().ok_or(BAD)?, edges: r.u64().ok_or(BAD)?, sources: r.u64().ok_or(BAD)? };
    let at = r.u64().ok_or(BAD)?;
    let len = r.u32().ok_or(BAD)?;
    let crc = r.u32().ok_or(BAD)?;
    let id = r.str().ok_or(BAD)?;
    let rel = r.str().ok_or(BAD)?;
    if at < TEXTS_HEAD || at + u64::from(len) > texts_end {
        return Err(BAD);
    }
    Ok(Raw { id, rel, version, at, len, crc })
}

/// Every entry of the index (not the tail) in order, unowned; then the changed paths it
/// remembers.
pub(super) fn scan<'a>(
    body: &'a [u8],
    texts_end: u64,
    mut each: impl FnMut(Raw<'a>),
) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let mut r = Reader(body);
    let n = r.u64().ok_or(BAD)?;
    for _ in 0..n {
        each(raw_entry(&mut r, texts_end)?);
    }
    since_links(r)
}

/// The changed paths the index remembers, after its entries (`r` at them).
pub(super) fn since_links(mut r: Reader<'_>) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let links = r.u32().ok_or(BAD)?;
    let mut since = Vec::new();
    for _ in 0..links.min(SINCE_KEPT as u32) {
        since.push(since_link(&mut r)?);
    }
    if !r.0.is_empty() {
        return Err(BAD);
    }
    Ok(since)
}

/// An entry's bytes before its id: its version, where its text lies, its length and CRC.
pub(super) const ENTRY_FIXED: usize = 3 * 8 + 8 + 4 + 4;

/// Every entry of the index (not the tail) seen as its id's and path's bytes and a reader at
/// its start (`raw_entry` decodes it), nothing checked as UTF-8: looking for a few ids or paths,
/// or for the changed paths after the entries, so costs a few milliseconds at 100k nodes
/// where decoding every entry cost 15–25 (docs/benchmarks.md, "Sixteenth session"). The reader
/// after the entries comes back.
pub(super) fn skim<'a>(
    body: &'a [u8],
    mut each: impl FnMut(&'a [u8], &'a [u8], Reader<'a>) -> Result<(), &'static str>,
) -> Result<Reader<'a>, &'static str> {
    let mut r = Reader(body);
    let n = r.u64().ok_or(BAD)?;
    for _ in 0..n {
        let start = Reader(r.0);
        r.take(ENTRY_FIXED).ok_or(BAD)?;
        let id = r.bytes().ok_or(BAD)?;
        let rel = r.bytes().ok_or(BAD)?;
        each(id, rel, start)?;
    }
    Ok(r)
}

pub(super) fn since_link(r: &mut Reader<'_>) -> Result<(u64, Vec<String>), &'static str> {
    let from = r.u64().ok_or(BAD)?;
    let count = r.u32().ok_or(BAD)? as usize;
    let mut paths = Vec::with_capacity(count.min(r.0.len() / 4));
    for _ in 0..count {
        paths.push(r.string().ok_or(BAD)?);
    }
    Ok((from, paths))
}

/// A change as the tail keeps it (`Tail`), borrowed.
pub(super) enum Told<'a> {
    Put(Raw<'a>),
    Version(&'a str, Version),
    Remove(&'a str),
    Since(u64, Vec<String>),
}

pub(super) const PUT: u8 = 1;
pub(super) const VERSION: u8 = 2;
pub(super) const REMOVE: u8 = 3;
pub(super) const SINCE: u8 = 4;

/// The tail's changes in the order they were appended.
pub(super) fn told<'a>(tail: &'a [u8], texts_end: u64, mut each: impl FnMut(Told<'a>)) -> Result<(), &'static str> {
    let mut r = Reader(tail);
    while !r.0.is_empty() {
        match r.take(1).ok_or(BAD)?[0] {
            PUT => each(Told::Put(raw_entry(&mut r, texts_end)?)),
            VERSION => {
                let id = r.str().ok_or(BAD)?;
                each(Told::Version(id, Version { xmin: r.u64().ok_or(BAD)?, edges: r.u64().ok_or(BAD)?, sources: r.u64().ok_or(BAD)? }))
            }
            REMOVE => each(Told::Remove(r.str().ok_or(BAD)?)),
            SINCE => {
                let (from, paths) = since_link(&mut r)?;
                each(Told::Since(from, paths))
            }
            _ => return Err(BAD),
        }
    }
    Ok(())
}

pub(super) fn put_entry(out: &mut Vec<u8>, e: &Entry) {
    for v in [e.version.xmin, e.version.edges, e.version.sources, e.at] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&e.len.to_le_bytes());
    out.extend_from_slice(&e.crc.to_le_bytes());
    for s in [&e.id, &e.rel] {
        put_string(out, s);
    }
}

pub(super) fn put_since(out: &mut Vec<u8>, from: u64, paths: &[String]) {
    out.extend_from_slice(&from.to_le_bytes());
    out.extend_from_slice(&(paths.len() as u32).to_le_bytes());
    for p in paths {
        put_string(out, p);
    }
}

pub(super) fn keep_since(since: &mut Vec<(u64, Vec<String>)>) {
    if since.len() > SINCE_KEPT {
        since.drain(..since.len() - SINCE_KEPT);
    }
}

pub(super) fn decode_index(p: Parts<'_>) -> Result<Index, &'static str> {
    let (header, raws, gone, since) = decode_raws(p)?;
    let entries = raws.iter().zip(&gone).filter(|(_, gone)| !**gone).map(|(raw, _)| raw.owned()).collect();
    Ok(Index { header, entries, since })
}

/// Every entry borrowed, with the tail applied: those the tail removed are marked `gone`.
pub(super) type Raws<'a> = (Header, Vec<Raw<'a>>, Vec<bool>, Vec<(u64, Vec<String>)>);

pub(super) fn decode_raws(p: Parts<'_>) -> Result<Raws<'_>, &'static str> {
    let end = p.header.texts_end;
    // The count is checked against the bytes actually there before anything is reserved.
    let n = p.body.get(..8).map_or(0, |c| u64::from_le_bytes(c.try_into().unwrap_or_default())) as usize;
    // The tail applied to entries still borrowed from the bytes, each owned once at the end
    // (an owned copy of every id for the tail's map was most of a decision's index read).
    let mut raws = Vec::with_capacity(n.min(p.body.len() / 48));
    let mut since = scan(p.body, end, |raw| raws.push(raw))?;
    let mut gone = vec![false; raws.len()];
    if !p.tail.is_empty() {
        let mut pos: HashMap<&str, usize, foldhash::fast::RandomState> =
            raws.iter().enumerate().map(|(k, e)| (e.id, k)).collect();
        told(p.tail, end, |c| match c {
            Told::Put(raw) => match pos.get(raw.id) {
                Some(&k) => {
                    raws[k] = raw;
                    gone[k] = false;
                }
                None => {
                    pos.insert(raw.id, raws.len());
                    raws.push(raw);
                    gone.push(false);
                }
            },
            Told::Version(id, v) => {
                if let Some(&k) = pos.get(id) {
                    raws[k].version = v;
                }
            }
            Told::Remove(id) => {
                if let Some(&k) = pos.get(id) {
                    gone[k] = true;
                }
            }
            Told::Since(from, paths) => {
                since.push((from, paths));
                keep_since(&mut since);
            }
        })?;
    }
    Ok((p.header, raws, gone, since))
}

/// The entries of these ids, from the index and its tail, without decoding the others.
pub(super) fn lookup(p: &Parts<'_>, ids: &[&str]) -> Result<HashMap<String, Entry>, &'static str> {
    let ids: std::collections::HashSet<&[u8], foldhash::fast::RandomState> = ids.iter().map(|id| id.as_bytes()).collect();
    let mut found: HashMap<String, Entry> = HashMap::new();
    skim(p.body, |id, _, mut at| {
        if ids.contains(id) {
            let raw = raw_entry(&mut at, p.header.texts_end)?;
            found.insert(raw.id.to_string(), raw.owned());
        }
        Ok(())
    })?;
    told(p.tail, p.header.texts_end, |c| match c {
        Told::Put(raw) if ids.contains(raw.id.as_bytes()) => {
            found.insert(raw.id.to_string(), raw.owned());
        }
        Told::Version(id, v) => {
            if let Some(e) = found.get_mut(id) {
                e.version = v;
            }
        }
        Told::Remove(id) => {
            found.remove(id);
        }
        _ => {}
    })?;
    Ok(found)
}

/// The changed paths the index and its tail remember, without decoding the entries.
pub(super) fn since_of(p: &Parts<'_>) -> Result<Vec<(u64, Vec<String>)>, &'static str> {
    let mut since = since_links(skim(p.body, |_, _, _| Ok(()))?)?;
    told(p.tail, p.header.texts_end, |c| {
        if let Told::Since(from, paths) = c {
            since.push((from, paths));
            keep_since(&mut since);
        }
    })?;
    Ok(since)
}

/// The index file's bytes for `header` (its index length and CRC set here) and `entries`.
pub(super) fn encode_index(header: &mut Header, entries: &[Entry], since: &[(u64, Vec<String>)]) -> Vec<u8> {
    let size: usize = entries.iter().map(|e| 48 + e.id.len() + e.rel.len()).sum();
    let mut body = Vec::with_capacity(size + 16);
    body.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for e in entries {
        put_entry(&mut body, e);
    }
    body.extend_from_slice(&(since.len() as u32).to_le_bytes());
    for (from, paths) in since {
        put_since(&mut body, *from, paths);
    }
    header.index_len = body.len() as u64;
    header.index_crc = crc32fast::hash(&body);
    header.tail_len = 0;
    header.tail_crc = crc32fast::hash(&[]);
    let mut out = encode_header(header);
    out.extend_from_slice(&body);
    out
}

pub(super) fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}


pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(super) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }

    pub(super) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }

    /// A string's bytes, unchecked.
    pub(super) fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}
