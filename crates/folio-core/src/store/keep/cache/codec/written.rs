//! A snapshot's sections as encoded and written, the entities' chunks a few at a time (the
//! next encoded while these are written): each either fresh bytes or a
//! chunk of the snapshot the store was decoded from (`Earlier`), which the kernel copies from
//! file to file (`std::io::copy` between files is `copy_file_range` on Linux) instead of
//! folio reading, checking and writing it. A chunk so copied is checked against its CRC when
//! the new snapshot is next decoded, as every section is.
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use super::{CHUNKS_AT_ONCE, Earlier, MAGIC, encode_chunks};
use crate::store::model::entity::Entity;

pub(super) enum Section {
    Fresh {
        bytes: Vec<u8>,
        crc: u32,
    },
    /// `len` bytes at `at` in the earlier snapshot's file, whose CRC is `crc`.
    Earlier {
        at: u64,
        len: u64,
        crc: u32,
    },
}

impl Section {
    /// `bytes` with their CRC, taken where they were encoded (on rayon's threads for chunks).
    pub(super) fn fresh(bytes: Vec<u8>) -> Section {
        let crc = crc32fast::hash(&bytes);
        Section::Fresh { bytes, crc }
    }

    /// The section's own header: its length and CRC.
    fn head(&self) -> [u8; 12] {
        let (len, crc) = match self {
            Section::Fresh { bytes, crc } => (bytes.len() as u64, *crc),
            Section::Earlier { len, crc, .. } => (*len, *crc),
        };
        let mut head = [0; 12];
        head[..8].copy_from_slice(&len.to_le_bytes());
        head[8..].copy_from_slice(&crc.to_le_bytes());
        head
    }
}

/// A snapshot's sections in the file's order: the first ones encoded, the rest of the
/// entities' chunks encoded as they are written (`write_to`), a few at a time.
pub struct Encoded<'e> {
    pub(super) sections: Vec<Section>,
    pub(super) chunks: Chunks<'e>,
}

/// The entities' chunks from `next` on, not yet encoded, and the earlier snapshot that
/// `Section::Earlier`s are in.
pub(super) struct Chunks<'e> {
    pub(super) entities: &'e [Arc<Entity>],
    pub(super) next: usize,
    pub(super) earlier: Option<&'e Earlier>,
}

impl Chunks<'_> {
    /// The next few chunks' sections; none once every chunk is.
    fn encode_next(&mut self) -> io::Result<Vec<Section>> {
        let range = self.next..self.next + CHUNKS_AT_ONCE;
        self.next = range.end;
        encode_chunks(self.entities, range, self.earlier).map_err(io::Error::other)
    }
}

impl Encoded<'_> {
    /// The snapshot's bytes in memory (what tests decode), earlier chunks read from its file.
    #[cfg(test)]
    pub(crate) fn into_bytes(mut self) -> io::Result<Vec<u8>> {
        loop {
            let more = self.chunks.encode_next()?;
            if more.is_empty() {
                break;
            }
            self.sections.extend(more);
        }
        let mut out = Vec::with_capacity(MAGIC.len() + self.sections.iter().map(|s| 12 + len_of(s)).sum::<usize>());
        out.extend_from_slice(MAGIC);
        for s in &self.sections {
            out.extend_from_slice(&s.head());
            match s {
                Section::Fresh { bytes, .. } => out.extend_from_slice(bytes),
                &Section::Earlier { at, len, .. } => {
                    let start = out.len();
                    out.resize(start + len as usize, 0);
                    super::read_exact_at(source(self.chunks.earlier)?, &mut out[start..], at)?;
                }
            }
        }
        Ok(out)
    }

    /// The snapshot written to `to` from its current position, earlier chunks copied from
    /// the earlier snapshot's file by the kernel.
    pub fn write_to(mut self, to: &File) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 20, to);
        out.write_all(MAGIC)?;
        let mut sections = std::mem::take(&mut self.sections);
        let earlier = self.chunks.earlier;
        while !sections.is_empty() {
            // The next chunks are encoded while these are written.
            let (next, written) =
                rayon::join(|| self.chunks.encode_next(), || write_sections(earlier, &mut out, to, &sections));
            written?;
            sections = next?;
        }
        out.flush()
    }
}

/// `sections` written to `out`, a buffer over `to`; earlier chunks copied from `earlier`'s file.
fn write_sections(
    earlier: Option<&Earlier>,
    out: &mut io::BufWriter<&File>,
    to: &File,
    sections: &[Section],
) -> io::Result<()> {
    for s in sections {
        out.write_all(&s.head())?;
        match s {
            Section::Fresh { bytes, .. } => out.write_all(bytes)?,
            &Section::Earlier { at, len, .. } => {
                // What the buffer holds goes first: the copy writes through `to` itself.
                out.flush()?;
                let mut from = source(earlier)?;
                from.seek(SeekFrom::Start(at))?;
                let copied = io::copy(&mut from.take(len), &mut &*to)?;
                if copied != len {
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the earlier snapshot was cut short"));
                }
            }
        }
    }
    Ok(())
}

/// The earlier snapshot's file, which a section taken from it is read from.
fn source(earlier: Option<&Earlier>) -> io::Result<&File> {
    earlier.map(Earlier::file).ok_or_else(|| io::Error::other("an earlier chunk without its snapshot"))
}

#[cfg(test)]
fn len_of(s: &Section) -> usize {
    match s {
        Section::Fresh { bytes, .. } => bytes.len(),
        Section::Earlier { len, .. } => *len as usize,
    }
}
