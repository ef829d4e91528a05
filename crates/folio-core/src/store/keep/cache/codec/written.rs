//! A snapshot's sections as encoded, before they are written: each either fresh bytes or a
//! chunk of the snapshot the store was decoded from (`Earlier`), which the kernel copies from
//! file to file (`std::io::copy` between files is `copy_file_range` on Linux) instead of
//! folio reading, checking and writing it. A chunk so copied is checked against its CRC when
//! the new snapshot is next decoded, as every section is.
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use super::{Earlier, MAGIC};

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

/// Every section of a snapshot, in the file's order, with the earlier snapshot its
/// `Section::Earlier`s are in.
pub struct Encoded<'e> {
    pub(super) sections: Vec<Section>,
    pub(super) earlier: Option<&'e Earlier>,
}

impl Encoded<'_> {
    /// The snapshot's bytes in memory (what tests decode), earlier chunks read from its file.
    #[cfg(test)]
    pub(crate) fn into_bytes(self) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(MAGIC.len() + self.sections.iter().map(|s| 12 + len_of(s)).sum::<usize>());
        out.extend_from_slice(MAGIC);
        for s in &self.sections {
            out.extend_from_slice(&s.head());
            match s {
                Section::Fresh { bytes, .. } => out.extend_from_slice(bytes),
                &Section::Earlier { at, len, .. } => {
                    let start = out.len();
                    out.resize(start + len as usize, 0);
                    super::read_exact_at(self.source()?, &mut out[start..], at)?;
                }
            }
        }
        Ok(out)
    }

    /// The snapshot written to `to` from its current position, earlier chunks copied from
    /// the earlier snapshot's file by the kernel.
    pub fn write_to(self, to: &File) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 20, to);
        out.write_all(MAGIC)?;
        for s in &self.sections {
            out.write_all(&s.head())?;
            match s {
                Section::Fresh { bytes, .. } => out.write_all(bytes)?,
                &Section::Earlier { at, len, .. } => {
                    // What the buffer holds goes first: the copy writes through `to` itself.
                    out.flush()?;
                    let mut from = self.source()?;
                    from.seek(SeekFrom::Start(at))?;
                    let copied = io::copy(&mut from.take(len), &mut &*to)?;
                    if copied != len {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the earlier snapshot was cut short"));
                    }
                }
            }
        }
        out.flush()
    }

    /// The earlier snapshot's file, which a section taken from it is read from.
    fn source(&self) -> io::Result<&File> {
        self.earlier.map(Earlier::file).ok_or_else(|| io::Error::other("an earlier chunk without its snapshot"))
    }
}

#[cfg(test)]
fn len_of(s: &Section) -> usize {
    match s {
        Section::Fresh { bytes, .. } => bytes.len(),
        Section::Earlier { len, .. } => *len as usize,
    }
}
