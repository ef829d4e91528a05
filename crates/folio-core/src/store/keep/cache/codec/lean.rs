//! An entity read back from the cache without its links: what the review inbox reads of a
//! cached store (issue 44). The links of a 100k-entity store are most of its decoded bytes and
//! allocations (docs/benchmarks.md, "The inbox, fourth pass"); here each link's record is
//! parsed in place — its text and a file resolution's path borrowed from the chunk's bytes —
//! and nothing of it is kept.
//!
//! `Lean` has `Entity`'s fields in `Entity`'s order (bincode is not self-describing: the order
//! is the layout), and `into_entity` names every field, so a field added to `Entity` does not
//! compile here until it is added in its place; `tests::lean_equals_whole_minus_links` checks
//! the two decodes agree on every field.
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};

use crate::store::model::entity::{Edge, Entity, LinkSyntax, Problem};

#[derive(Deserialize)]
pub(super) struct Lean {
    id: String,
    path: String,
    kind: Option<Arc<str>>,
    title: String,
    description: Option<Box<str>>,
    status: Option<Arc<str>>,
    created: Option<Box<str>>,
    updated: Option<Box<str>>,
    tags: Vec<Arc<str>>,
    aliases: Vec<String>,
    sources: Vec<String>,
    confidence: Option<f64>,
    edges: Vec<Edge>,
    links: SkippedLinks,
    problems: Vec<Problem>,
    line: u32,
    span: Range<u32>,
    body_start: u32,
    file_size: u64,
    mtime_ns: i64,
}

impl Lean {
    pub(super) fn into_entity(self) -> Entity {
        let Lean {
            id,
            path,
            kind,
            title,
            description,
            status,
            created,
            updated,
            tags,
            aliases,
            sources,
            confidence,
            edges,
            links: SkippedLinks,
            problems,
            line,
            span,
            body_start,
            file_size,
            mtime_ns,
        } = self;
        Entity {
            id,
            path,
            kind,
            title,
            description,
            status,
            created,
            updated,
            tags,
            aliases,
            sources,
            confidence,
            edges,
            links: Vec::new(),
            problems,
            line,
            span,
            body_start,
            file_size,
            mtime_ns,
        }
    }
}

/// An entity's links as `entity::link_wire` writes them (their texts, then one record per
/// link), parsed and dropped.
struct SkippedLinks;

impl<'de> Deserialize<'de> for SkippedLinks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Wire::deserialize(d).map(|_| SkippedLinks)
    }
}

/// `link_wire::Wire`'s layout: the texts (bytes: no UTF-8 check, nothing kept), the records.
#[derive(Deserialize)]
struct Wire {
    _text: Bytes,
    _links: Skipped<Record>,
}

/// `link_wire::Record`'s layout.
#[derive(Deserialize)]
struct Record {
    _text_len: u32,
    _target_len: u32,
    _syntax: LinkSyntax,
    _span: Range<u32>,
    _line: u32,
    _col: u32,
    _resolution: Resolution,
}

/// `entity::Resolution`'s variants in their order; a file's path is read and not kept.
#[derive(Deserialize)]
enum Resolution {
    Pending,
    Entity(#[allow(dead_code)] u32),
    File(#[allow(dead_code)] Bytes),
    External,
    Anchor,
    Broken,
    Escapes,
}

/// A length-prefixed run of bytes, skipped.
struct Bytes;

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(IgnoredAny).map(|_| Bytes)
    }
}

/// A sequence of `T`, each parsed and dropped: no buffer for them.
struct Skipped<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Skipped<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Each<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Each<T> {
            type Value = Skipped<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<T>()?.is_some() {}
                Ok(Skipped(PhantomData))
            }
        }
        d.deserialize_seq(Each(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::model::entity::{Link, Resolution as R, rule};

    fn options() -> impl bincode::Options {
        use bincode::Options;
        bincode::DefaultOptions::new().reject_trailing_bytes()
    }

    /// Every field set, links of every resolution: the lean decode is the whole decode with
    /// no links, and the bytes after the links (problems, spans, sizes) are read where they are.
    #[test]
    fn lean_equals_whole_minus_links() {
        use bincode::Options;
        let resolutions =
            [R::Pending, R::Entity(7), R::file("img/pic.png"), R::External, R::Anchor, R::Broken, R::Escapes];
        let links = resolutions
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let label = (i % 2 == 0).then_some("Ä label");
                let mut l = Link::new(LinkSyntax::Markdown, &format!("t{i}.md"), label, 3..20, 2, i as u32);
                l.resolution = r;
                l
            })
            .collect();
        let whole = Entity {
            id: "a/b".into(),
            path: "a/b.md".into(),
            kind: Some("concept".into()),
            title: "Title ü".into(),
            description: Some("desc".into()),
            status: Some("draft".into()),
            created: Some("2024-01-02".into()),
            updated: Some("2024-02-03".into()),
            tags: vec!["x".into(), "y".into()],
            aliases: vec!["al".into()],
            sources: vec!["src.md".into()],
            confidence: Some(0.5),
            edges: vec![Edge { kind: "supersedes".into(), target: "c".into(), resolved: Some(3) }],
            links,
            problems: vec![Problem::new(rule::CONTROL_CHARS, "esc", 1, 2).at_bytes(Some(4..9))],
            line: 4,
            span: 5..600,
            body_start: 40,
            file_size: 600,
            mtime_ns: -12,
        };
        let bytes = options().serialize(&vec![&whole, &Entity::default(), &whole]).unwrap();
        let lean: Vec<Lean> = options().deserialize(&bytes).unwrap();
        let mut want = whole.clone();
        want.links.clear();
        let got: Vec<Entity> = lean.into_iter().map(Lean::into_entity).collect();
        assert_eq!(format!("{:?}", got), format!("{:?}", [want.clone(), Entity::default(), want]));
        // A cut inside the links is an error, not a misread.
        let cut: Result<Vec<Lean>, _> = options().deserialize(&bytes[..bytes.len() / 3]);
        assert!(cut.is_err());
    }
}
