//! Embedded notes (`![[note]]`, `![[note#Section]]`, `![[note#^block]]`) filled in with what
//! they embed, one level deep as a reader needs it (an embed inside an embedded note stays a
//! labelled box: no cycles, no unbounded reading). Links inside embedded text are drawn as text:
//! they belong to another note and are followed from there.
use super::anchors;
use super::doc::{self, Block, Doc, Inline, Item};

/// Fill every note embed of `doc` (at any nesting) from `read`, which gives a target's body text
/// or why it cannot.
pub fn fill(doc: &mut Doc, read: &mut dyn FnMut(&str) -> Result<String, String>) {
    fill_blocks(&mut doc.blocks, read);
}

fn fill_blocks(blocks: &mut [Block], read: &mut dyn FnMut(&str) -> Result<String, String>) {
    for block in blocks {
        match block {
            Block::Embed(e) if e.kind == "note" => match read(&e.target) {
                Ok(text) => {
                    let fragment = e.target.split_once('#').map(|(_, f)| f);
                    match section(doc::parse(&text), fragment) {
                        Some(blocks) => e.content = Some(blocks),
                        None => e.missing = Some(format!("no #{} in it", fragment.unwrap_or_default())),
                    }
                }
                Err(why) => e.missing = Some(why),
            },
            Block::Quote(inner) => fill_blocks(inner, read),
            Block::Callout { body, .. } => fill_blocks(body, read),
            Block::List { items, .. } => items.iter_mut().for_each(|i| fill_blocks(&mut i.blocks, read)),
            _ => {}
        }
    }
}

/// The blocks `fragment` names in a parsed note — a heading and what follows it up to the next
/// heading of its level or above, or the paragraph carrying a block id — or the whole note.
pub fn section(doc: Doc, fragment: Option<&str>) -> Option<Vec<Block>> {
    let blocks: Vec<Block> = doc.blocks.into_iter().map(unlinked).collect();
    let Some(fragment) = fragment.map(str::trim).filter(|f| !f.is_empty()) else { return Some(blocks) };
    let wanted = fragment.rsplit('#').next().unwrap_or(fragment);
    if wanted.starts_with('^') {
        return blocks
            .into_iter()
            .find(|b| {
                matches!(b, Block::Paragraph(p)
                    if p.last().and_then(|l| anchors::split_block_id(&l.text)).is_some_and(|(_, id)| id == wanted))
            })
            .map(|b| vec![b]);
    }
    let start = blocks
        .iter()
        .position(|b| matches!(b, Block::Heading { text, .. } if anchors::names(&doc::plain(text), fragment)))?;
    let Block::Heading { level, .. } = blocks[start] else { return None };
    let end = blocks[start + 1..]
        .iter()
        .position(|b| matches!(b, Block::Heading { level: l, .. } if *l <= level))
        .map_or(blocks.len(), |n| start + 1 + n);
    Some(blocks.into_iter().take(end).skip(start).collect())
}

/// A block with its links drawn as text and its embeds left unexpanded.
fn unlinked(block: Block) -> Block {
    let runs = |v: Vec<Inline>| -> Vec<Inline> {
        v.into_iter()
            .map(|mut i| {
                i.style.link = None;
                i
            })
            .collect()
    };
    let blocks = |v: Vec<Block>| v.into_iter().map(unlinked).collect::<Vec<_>>();
    match block {
        Block::Heading { level, text } => Block::Heading { level, text: runs(text) },
        Block::Paragraph(p) => Block::Paragraph(runs(p)),
        Block::Quote(inner) => Block::Quote(blocks(inner)),
        Block::Callout { mut head, body } => {
            head.title = runs(head.title);
            Block::Callout { head, body: blocks(body) }
        }
        Block::List { start, items } => Block::List {
            start,
            items: items.into_iter().map(|i| Item { task: i.task, blocks: blocks(i.blocks) }).collect(),
        },
        Block::Table { align, rows } => {
            Block::Table { align, rows: rows.into_iter().map(|r| r.into_iter().map(runs).collect()).collect() }
        }
        // An embed in an embedded note is a label only: its link belongs to the other note.
        Block::Embed(mut e) => {
            e.content = None;
            e.missing = Some("an embed inside an embed: follow it to read it".into());
            Block::Paragraph(vec![Inline { text: format!("⧉ {}: {}", e.kind, e.target), style: Default::default() }])
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "# Incident\n\nIntro with [[a link]].\n\n## Timeline\n\n- 09:12 stale prices\n\n### Detail\n\nDeeper.\n\n## Cause\n\nThe job skipped entries. ^root-cause\n\n![[Other]]\n";

    fn texts(blocks: &[Block]) -> String {
        let mut out = String::new();
        for b in blocks {
            match b {
                Block::Heading { text, .. } | Block::Paragraph(text) => out.push_str(&doc::plain(text)),
                Block::List { items, .. } => {
                    out.push_str(&texts(&items.iter().flat_map(|i| i.blocks.clone()).collect::<Vec<_>>()));
                    continue;
                }
                _ => out.push('?'),
            }
            out.push('|');
        }
        out
    }

    #[test]
    fn a_heading_embeds_its_section_down_to_the_next_heading_of_its_level() {
        let got = section(doc::parse(NOTE), Some("Timeline")).unwrap();
        assert_eq!(texts(&got), "Timeline|09:12 stale prices|Detail|Deeper.|");
        let got = section(doc::parse(NOTE), Some("Incident#Cause")).unwrap();
        assert_eq!(texts(&got), "Cause|The job skipped entries. ^root-cause|⧉ note: Other|");
        assert!(section(doc::parse(NOTE), Some("Nowhere")).is_none());
    }

    #[test]
    fn a_block_id_embeds_its_paragraph_and_no_fragment_the_whole_note() {
        let got = section(doc::parse(NOTE), Some("^root-cause")).unwrap();
        assert_eq!(texts(&got), "The job skipped entries. ^root-cause|");
        assert_eq!(section(doc::parse(NOTE), None).unwrap().len(), 9);
    }

    #[test]
    fn embedded_links_are_text_and_nested_embeds_are_not_expanded() {
        let got = section(doc::parse(NOTE), None).unwrap();
        let Block::Paragraph(intro) = &got[1] else { panic!("{got:?}") };
        assert!(intro.iter().all(|i| i.style.link.is_none()));
        assert!(!got.iter().any(|b| matches!(b, Block::Embed(_))));
    }

    #[test]
    fn fill_reads_note_embeds_only_and_says_why_one_is_missing() {
        let mut d = doc::parse("Top.\n\n![[Incident#Timeline]]\n![[board.base]]\n\n> ![[Gone]]\n");
        let mut asked = Vec::new();
        fill(&mut d, &mut |t: &str| {
            asked.push(t.to_string());
            if t.starts_with("Incident") { Ok(NOTE.to_string()) } else { Err("not in the store".into()) }
        });
        assert_eq!(asked, vec!["Incident#Timeline", "Gone"]);
        let embeds: Vec<_> = d
            .blocks
            .iter()
            .flat_map(|b| match b {
                Block::Quote(inner) => inner.clone(),
                b => vec![b.clone()],
            })
            .filter_map(|b| if let Block::Embed(e) = b { Some(e) } else { None })
            .collect();
        assert_eq!(embeds.len(), 3, "{:?}", d.blocks);
        assert_eq!(texts(embeds[0].content.as_ref().unwrap()), "Timeline|09:12 stale prices|Detail|Deeper.|");
        assert_eq!(embeds[1].kind, "base");
        assert!(embeds[1].content.is_none() && embeds[1].missing.is_none());
        assert_eq!(embeds[2].missing.as_deref(), Some("not in the store"));
    }
}
