//! What `validate` needs of each entity — its file's path, size and mtime, in the entities'
//! order — in a section of its own, so that the review inbox checks the files before it decodes
//! any entity and decodes nothing it would throw away when one changed (issue 44;
//! docs/benchmarks.md, "The inbox, sixth pass"). Paths are front-coded (the bytes shared with
//! the previous path, then the rest): the entities are sorted by path, so the section costs a
//! few bytes an entity beyond the size and mtime.
use serde::{Deserialize, Serialize};

use crate::store::model::entity::Entity;

/// One entity's file as the snapshot saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// (bytes shared with the previous path, the rest of this one, size, mtime).
#[derive(Serialize, Deserialize)]
struct Wire<'a>(u32, &'a str, u64, i64);

fn options() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new().reject_trailing_bytes()
}

/// The section's bytes for `entities`.
pub(super) fn encode<'e>(entities: impl Iterator<Item = &'e Entity>) -> Result<Vec<u8>, String> {
    use bincode::Options;
    let mut prev = "";
    let wire: Vec<Wire<'_>> = entities
        .map(|e| {
            let mut shared = prev.bytes().zip(e.path.bytes()).take_while(|(a, b)| a == b).count();
            while !e.path.is_char_boundary(shared) {
                shared -= 1;
            }
            prev = &e.path;
            Wire(shared as u32, &e.path[shared..], e.file_size, e.mtime_ns)
        })
        .collect();
    options().serialize(&wire).map_err(|e| e.to_string())
}

/// The stamps the section holds; a path that claims more of the previous one than there is is
/// an error, as a bad CRC is.
pub(super) fn decode(bytes: &[u8]) -> Result<Vec<Stamp>, String> {
    use bincode::Options;
    let wire: Vec<Wire<'_>> = options().deserialize(bytes).map_err(|e| format!("file stamps: {e}"))?;
    let mut out: Vec<Stamp> = Vec::with_capacity(wire.len());
    for Wire(shared, rest, size, mtime_ns) in wire {
        let prev = out.last().map_or("", |s| s.path.as_str());
        let shared = shared as usize;
        if shared > prev.len() || !prev.is_char_boundary(shared) {
            return Err("file stamps: a path shares more than the previous one has".into());
        }
        let mut path = String::with_capacity(shared + rest.len());
        path.push_str(&prev[..shared]);
        path.push_str(rest);
        out.push(Stamp { path, size, mtime_ns });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(path: &str, size: u64, mtime_ns: i64) -> Entity {
        Entity { path: path.into(), file_size: size, mtime_ns, ..Entity::default() }
    }

    /// Shared prefixes that end inside a character, a path repeated (two entities of one
    /// file), a negative mtime and an empty path: each reads back as written.
    #[test]
    fn stamps_round_trip() {
        let es = [
            entity("", 0, 0),
            entity("a/ä.md", 10, -3),
            entity("a/ö.md", 11, 1_700_000_000_000_000_000),
            entity("a/ö.md", 11, 1_700_000_000_000_000_000),
            entity("b.md", u64::MAX, i64::MIN),
        ];
        let bytes = encode(es.iter()).unwrap();
        let got = decode(&bytes).unwrap();
        let want: Vec<Stamp> =
            es.iter().map(|e| Stamp { path: e.path.clone(), size: e.file_size, mtime_ns: e.mtime_ns }).collect();
        assert_eq!(got, want);
        assert_eq!(decode(&encode(std::iter::empty()).unwrap()).unwrap(), Vec::new());
    }

    #[test]
    fn a_cut_or_an_impossible_prefix_is_an_error() {
        let es = [entity("notes/one.md", 1, 2), entity("notes/two.md", 3, 4)];
        let bytes = encode(es.iter()).unwrap();
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        use bincode::Options;
        let bad = options().serialize(&vec![Wire(0, "ab", 1, 1), Wire(3, "c", 1, 1)]).unwrap();
        assert!(decode(&bad).unwrap_err().contains("shares more"));
        let inside = options().serialize(&vec![Wire(0, "ä", 1, 1), Wire(1, "c", 1, 1)]).unwrap();
        assert!(decode(&inside).is_err());
    }
}
