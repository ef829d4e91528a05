//! The text index as the persistent cache lays it out, read on demand: a later query reads the
//! file's header, a short table of dictionary blocks and every entity's length, then only the
//! dictionary blocks and posting lists of its own words (by `pread`, from the page cache), not
//! the whole index. Each dictionary block and each posting list carries its own CRC-32, checked
//! as it is read, so a damaged file is found where a query reads it without reading it all.
//!
//! After the magic line, sections framed as every side file's (`side::write`: length, CRC-32,
//! bytes): the header; `Meta` (the block table); the keys of the entities indexed; the lengths
//! (u32 LE per entity); the dictionary (blocks of up to `BLOCK` `Entry`s, words sorted); the
//! posting lists (in the dictionary's order, each as `TextIndex` encodes one).
use std::fs::File;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::index::Posting;
use crate::store::Store;
use crate::store::keep::cache::codec::Header;
use crate::store::keep::cache::side::{self, Key};

/// Words per dictionary block: a lookup reads and decodes one block (a few KB).
pub const BLOCK: usize = 128;

/// A word in the dictionary: how many entities hold it and where its posting list lies in the
/// postings section, with that list's CRC.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub word: Box<str>,
    pub df: u32,
    pub at: u64,
    pub len: u32,
    pub crc: u32,
}

/// A dictionary block: its first word (blocks are in word order), where it lies in the
/// dictionary section and its CRC.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Block {
    pub first: Box<str>,
    pub at: u64,
    pub len: u32,
    pub crc: u32,
}

/// What a reader needs before any word: whether the index still describes the store (the
/// digest of the keys it was made from, and whether all those keys were trusted as written)
/// and the dictionary's block table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    /// `side::keys_digest` of the store the index was made from.
    pub digest: u64,
    /// Every entity's record held for that very store as of the header's `read_since_ns`
    /// (`side::kept` mapped each to itself): an equal digest then means nothing to read again.
    pub whole: bool,
    pub words: u64,
    pub blocks: Vec<Block>,
}

/// A word, how many entities hold it and its posting list's bytes.
pub type WordList = (Box<str>, u32, Vec<u8>);

/// Where a section lies in the file: its bytes' offset, length and CRC.
#[derive(Debug, Clone, Copy)]
struct Section {
    at: u64,
    len: u64,
    crc: u32,
}

/// An index file opened for a query: its header, block table and lengths read and checked; the
/// rest read on demand.
#[derive(Debug)]
pub struct CachedIndex {
    file: File,
    pub header: Header,
    pub meta: Meta,
    pub lengths: Vec<u32>,
    keys: Section,
    dictionary: Section,
    postings: Section,
    /// Why a part read after the open could not be used (its CRC, a truncated file): the
    /// query that read it must not be trusted (`TextIndex::damaged`).
    damaged: Mutex<Option<String>>,
}

fn read_at(file: &File, at: u64, len: u64) -> Result<Vec<u8>, String> {
    let len = usize::try_from(len).map_err(|_| "truncated".to_string())?;
    let mut bytes = vec![0u8; len];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut bytes, at).map_err(|_| "truncated".to_string())?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
        f.read_exact(&mut bytes).map_err(|_| "truncated".to_string())?;
    }
    Ok(bytes)
}

/// `bytes` if their CRC is `crc`.
fn checked(bytes: Vec<u8>, crc: u32, what: &str) -> Result<Vec<u8>, String> {
    if crc32fast::hash(&bytes) != crc {
        return Err(format!("{what}: checksum mismatch"));
    }
    Ok(bytes)
}

fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, String> {
    use bincode::Options;
    side::options().deserialize(bytes).map_err(|e| format!("{what}: {e}"))
}

impl CachedIndex {
    /// The index file at `path` for `store`, its header, block table and lengths checked;
    /// `None` when there is no file; an error says why a file present cannot be used.
    pub fn open(path: &Path, magic: &[u8; 8], format: u32, what: &str, store: &Store) -> Result<Option<Self>, String> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let size = file.metadata().map_err(|e| e.to_string())?.len();
        if read_at(&file, 0, 8)? != magic {
            return Err(format!("not a folio {what}"));
        }
        // The sections' frames, in order: each is found from the one before.
        let mut sections = Vec::with_capacity(6);
        let mut at = 8u64;
        for _ in 0..6 {
            let head = read_at(&file, at, 12)?;
            let len = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
            let crc = u32::from_le_bytes(head[8..].try_into().unwrap_or_default());
            let start = at + 12;
            if start.checked_add(len).is_none_or(|end| end > size) {
                return Err("truncated".into());
            }
            sections.push(Section { at: start, len, crc });
            at = start + len;
        }
        let whole = |s: Section, name: &str| read_at(&file, s.at, s.len).and_then(|b| checked(b, s.crc, name));
        let header: Header = decode(&whole(sections[0], "header")?, "header")?;
        if let Some(why) = side::invalid_header(&header, format, what, store) {
            return Err(why);
        }
        let meta: Meta = decode(&whole(sections[1], "block table")?, "block table")?;
        let lengths: Vec<u32> = whole(sections[3], "lengths")?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if lengths.len() as u64 != header.entities || sections[3].len % 4 != 0 {
            return Err(format!("{} lengths for {} entities", lengths.len(), header.entities));
        }
        let (keys, dictionary, postings) = (sections[2], sections[4], sections[5]);
        if meta.blocks.iter().any(|b| b.at + u64::from(b.len) > dictionary.len) {
            return Err("a dictionary block past the dictionary".into());
        }
        Ok(Some(CachedIndex { file, header, meta, lengths, keys, dictionary, postings, damaged: Mutex::new(None) }))
    }

    /// `read`'s value, or `None` with why it failed kept for `damaged`.
    pub fn noting<T>(&self, read: Result<T, String>) -> Option<T> {
        match read {
            Ok(v) => Some(v),
            Err(why) => {
                if let Ok(mut d) = self.damaged.lock() {
                    d.get_or_insert(why);
                }
                None
            }
        }
    }

    /// Why a read after the open failed, if one did.
    pub fn damaged(&self) -> Option<String> {
        self.damaged.lock().ok().and_then(|d| d.clone())
    }

    /// The keys of the entities indexed (read only when the store differs from the digest's).
    pub fn keys(&self) -> Result<Vec<Key>, String> {
        let bytes = checked(read_at(&self.file, self.keys.at, self.keys.len)?, self.keys.crc, "keys")?;
        decode(&bytes, "keys")
    }

    /// Check every byte of the dictionary and the postings against their sections' CRCs (the
    /// TUI keeps the index for a session, every word reachable as the person types).
    pub fn check_all(&self) -> Result<(), String> {
        for (s, name) in [(self.dictionary, "dictionary"), (self.postings, "postings")] {
            checked(read_at(&self.file, s.at, s.len)?, s.crc, name)?;
        }
        Ok(())
    }

    /// Dictionary block `b`, its CRC checked.
    fn block(&self, b: usize) -> Result<Vec<Entry>, String> {
        let block = &self.meta.blocks[b];
        let bytes = read_at(&self.file, self.dictionary.at + block.at, u64::from(block.len))?;
        let entries: Vec<Entry> = decode(&checked(bytes, block.crc, "dictionary block")?, "dictionary block")?;
        if entries.iter().any(|e| e.at + u64::from(e.len) > self.postings.len) {
            return Err("a posting list past the postings".into());
        }
        Ok(entries)
    }

    /// The dictionary entry of `word`, if any entity holds it.
    pub fn entry(&self, word: &str) -> Result<Option<Entry>, String> {
        // The last block whose first word is not after `word`.
        let b = self.meta.blocks.partition_point(|b| &*b.first <= word);
        if b == 0 {
            return Ok(None);
        }
        let entries = self.block(b - 1)?;
        Ok(entries.binary_search_by(|e| (*e.word).cmp(word)).ok().map(|i| entries[i].clone()))
    }

    /// Every indexed word starting with `prefix`, with how many entities hold it, in word order.
    pub fn starting_with(&self, prefix: &str) -> Result<Vec<(String, u32)>, String> {
        let mut out = Vec::new();
        // From the block that may hold the first word at or after `prefix`.
        let mut b = self.meta.blocks.partition_point(|b| &*b.first < prefix).saturating_sub(1);
        while b < self.meta.blocks.len() {
            if b > 0 && !self.meta.blocks[b].first.starts_with(prefix) && *self.meta.blocks[b].first > *prefix {
                break;
            }
            for e in self.block(b)? {
                if e.word.starts_with(prefix) {
                    out.push((e.word.into_string(), e.df));
                }
            }
            b += 1;
        }
        Ok(out)
    }

    /// The bytes of `entry`'s posting list, its CRC checked.
    pub fn list_bytes(&self, entry: &Entry) -> Result<Vec<u8>, String> {
        let bytes = read_at(&self.file, self.postings.at + entry.at, u64::from(entry.len))?;
        checked(bytes, entry.crc, "posting list")
    }

    /// The postings of `word`, in entity order (none when no entity holds it).
    pub fn postings(&self, word: &str) -> Result<Vec<Posting>, String> {
        let Some(entry) = self.entry(word)? else { return Ok(Vec::new()) };
        let bytes = self.list_bytes(&entry)?;
        Ok(super::index::decode_list(&bytes, entry.df as usize))
    }

    /// Where in the file `word`'s dictionary block and posting list start (for tests that
    /// damage them).
    #[cfg(test)]
    pub fn places_of(&self, word: &str) -> (u64, u64) {
        let b = self.meta.blocks.partition_point(|b| &*b.first <= word) - 1;
        let entry = self.entry(word).unwrap().unwrap();
        (self.dictionary.at + self.meta.blocks[b].at, self.postings.at + entry.at)
    }

    /// Every word with its list's bytes, in word order (for an index held in memory).
    pub fn all(&self) -> Result<Vec<WordList>, String> {
        let postings =
            checked(read_at(&self.file, self.postings.at, self.postings.len)?, self.postings.crc, "postings")?;
        let mut out = Vec::with_capacity(self.meta.words as usize);
        for b in 0..self.meta.blocks.len() {
            for e in self.block(b)? {
                let (start, end) = (e.at as usize, e.at as usize + e.len as usize);
                out.push((e.word, e.df, postings[start..end].to_vec()));
            }
        }
        Ok(out)
    }
}

/// The sections after the header for an index of `words` (sorted, each with its df and list
/// bytes), `lengths` and `keys`, made from a store whose digest is `digest`.
pub fn sections<'a>(
    words: impl Iterator<Item = (&'a str, u32, &'a [u8])>,
    lengths: &[u32],
    keys: &[Key],
    digest: u64,
    whole: bool,
) -> Result<Vec<Vec<u8>>, String> {
    let mut postings = Vec::new();
    let mut dictionary = Vec::new();
    let mut blocks = Vec::new();
    let mut block: Vec<Entry> = Vec::with_capacity(BLOCK);
    let mut count = 0u64;
    let mut flush = |block: &mut Vec<Entry>, dictionary: &mut Vec<u8>| -> Result<(), String> {
        if block.is_empty() {
            return Ok(());
        }
        let bytes = side::encode(block)?;
        blocks.push(Block {
            first: block[0].word.clone(),
            at: dictionary.len() as u64,
            len: bytes.len() as u32,
            crc: crc32fast::hash(&bytes),
        });
        dictionary.extend_from_slice(&bytes);
        block.clear();
        Ok(())
    };
    for (word, df, list) in words {
        block.push(Entry {
            word: word.into(),
            df,
            at: postings.len() as u64,
            len: list.len() as u32,
            crc: crc32fast::hash(list),
        });
        postings.extend_from_slice(list);
        count += 1;
        if block.len() == BLOCK {
            flush(&mut block, &mut dictionary)?;
        }
    }
    flush(&mut block, &mut dictionary)?;
    let meta = Meta { digest, whole, words: count, blocks };
    let lengths: Vec<u8> = lengths.iter().flat_map(|l| l.to_le_bytes()).collect();
    Ok(vec![side::encode(&meta)?, side::encode(keys)?, lengths, dictionary, postings])
}
