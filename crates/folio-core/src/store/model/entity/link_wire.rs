//! An entity's links as the cache file holds them: their texts once, one after another, then
//! each link's place in them. Read back, the links of one entity share one text again, as
//! they do after a load (`Link::in_shared`): a text per link would make a cached open allocate
//! a string per link where the load makes one per entity (docs/benchmarks.md, "Cache figures").
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Link, LinkSyntax, LinkText, Resolution};

#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    links: Vec<Record>,
}

/// One link, its text being the next `text_len` bytes of `Wire::text`.
#[derive(Serialize, Deserialize)]
struct Record {
    text_len: u32,
    target_len: u32,
    syntax: LinkSyntax,
    span: Range<u32>,
    line: u32,
    col: u32,
    resolution: Resolution,
}

pub fn serialize<S: Serializer>(links: &[Link], s: S) -> Result<S::Ok, S::Error> {
    let text: String = links.iter().map(|l| l.text.as_str()).collect();
    let links = links
        .iter()
        .map(|l| Record {
            text_len: l.text.as_str().len() as u32,
            target_len: l.target_len,
            syntax: l.syntax,
            span: l.span.clone(),
            line: l.line,
            col: l.col,
            resolution: l.resolution.clone(),
        })
        .collect();
    Wire { text: Cow::Owned(text), links }.serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Link>, D::Error> {
    let wire = Wire::deserialize(d)?;
    if wire.links.is_empty() {
        return Ok(Vec::new());
    }
    let all: Arc<str> = Arc::from(&*wire.text);
    let mut at = 0u32;
    let mut links = Vec::with_capacity(wire.links.len());
    for r in wire.links {
        let end =
            at.checked_add(r.text_len).filter(|&end| all.is_char_boundary(end as usize) && end as usize <= all.len());
        let Some(end) = end else {
            return Err(serde::de::Error::custom("a link's text runs past the entity's link texts"));
        };
        links.push(Link {
            text: LinkText { all: Arc::clone(&all), start: at, end },
            target_len: r.target_len,
            syntax: r.syntax,
            span: r.span,
            line: r.line,
            col: r.col,
            resolution: r.resolution,
        });
        at = end;
    }
    Ok(links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Holder(#[serde(with = "super")] Vec<Link>);

    fn options() -> impl bincode::Options {
        use bincode::Options;
        bincode::DefaultOptions::new().reject_trailing_bytes()
    }

    #[test]
    fn links_round_trip_sharing_one_text() {
        use bincode::Options;
        let mut a = Link::new(LinkSyntax::Markdown, "../a.md", Some("Ä label"), 3..20, 2, 5);
        a.resolution = Resolution::file("a.md");
        let b = Link::new(LinkSyntax::Wiki, "Note", None, 30..38, 3, 1);
        let c = Link::new(LinkSyntax::Wiki, "", None, 40..44, 4, 1);
        let bytes = options().serialize(&Holder(vec![a.clone(), b.clone(), c.clone()])).unwrap();
        let Holder(back) = options().deserialize(&bytes).unwrap();
        assert_eq!(back, [a, b, c]);
        assert_eq!((back[0].target(), back[0].label(), back[1].label()), ("../a.md", Some("Ä label"), None));
        assert!(Arc::ptr_eq(&back[0].text.all, &back[2].text.all), "one text for the entity's links");
        let Holder(none) = options().deserialize(&options().serialize(&Holder(Vec::new())).unwrap()).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn a_length_past_the_text_or_inside_a_character_is_an_error() {
        use bincode::Options;
        let record = |text_len| Record {
            text_len,
            target_len: 1,
            syntax: LinkSyntax::Wiki,
            span: 0..1,
            line: 1,
            col: 1,
            resolution: Resolution::Pending,
        };
        for (text, len) in [("ab", 3), ("Ä", 1), ("ab", u32::MAX)] {
            let bytes = options().serialize(&Wire { text: Cow::Borrowed(text), links: vec![record(len)] }).unwrap();
            assert!(options().deserialize::<Holder>(&bytes).is_err(), "{text} {len}");
        }
    }
}
