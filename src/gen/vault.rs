//! Plain markdown vaults (Obsidian-style LLM wikis): `concepts/` `entities/` `sources/`
//! folders, file names with spaces (`concepts/Daily Order 12.md`), optional frontmatter
//! (`tags`, `aliases`, `created`, `related: ["[[Title]]"]`) and `[[Title]]` /
//! `[[Title|alias]]` links by title.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const FOLDERS: &[&str] = &["concepts", "entities", "sources", "questions"];

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let notes: Vec<(usize, String)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let folder = rng.below(FOLDERS.len());
            (folder, words::name(&mut rng, i).1)
        })
        .collect();
    par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0x7A17, i as u64);
        let (folder, title) = &notes[i];
        let mut text = String::new();
        if rng.chance(80) {
            text.push_str(&format!(
                "---\ntags: [{}]\naliases: [{}]\ncreated: {}\nrelated: [\"[[{}]]\"]\n---\n\n",
                words::tags(&mut rng).join(", "),
                title.to_lowercase().replace(' ', "-"),
                words::date(&mut rng),
                notes[rng.below(n)].1
            ));
        }
        let links: Vec<String> = (0..rng.range(1, 6))
            .map(|_| {
                let t = &notes[rng.below(n)].1;
                if rng.chance(25) { format!("[[{t}|{}]]", t.to_lowercase()) } else { format!("[[{t}]]") }
            })
            .collect();
        let b = body::build(&mut rng, 1400, &["## Notes", "## Connections"], &links);
        text.push_str(&format!("# {title}\n\n"));
        text.push_str(&b.text);
        w.write(&format!("{}/{title}.md", FOLDERS[*folder]), &text)?;
        Ok(b.links)
    })
}
