//! Obsidian vaults as LLM wikis grow them: `concepts/` `entities/` `sources/` `questions/`
//! folders, file names with spaces (`concepts/Daily Order 12.md`), optional frontmatter
//! (`tags`, `aliases`, `created`, `related: ["[[Title]]"]`), a block id in every note, a few
//! attachments, and every link form Obsidian resolves, in the mix a real vault has: `[[Title]]`,
//! `[[Title|alias]]`, `[[alias]]`, a title in another case, `[[folder/Title]]`, heading and
//! block references, note and file embeds, `%20`-encoded relative markdown links, and a few
//! links to notes that do not exist yet.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const FOLDERS: &[&str] = &["concepts", "entities", "sources", "questions"];
const ATTACHMENTS: usize = 40;

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    generate_in(w, n, seed, false)
}

/// The vault the `wild` shape starts from (issue 44): 3–7 links a note, 55 % of them markdown
/// links and 1 % to nothing, as in a real vault an agent and its people wrote.
pub fn generate_wild(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    generate_in(w, n, seed, true)
}

fn generate_in(w: &Writer, n: usize, seed: u64, wild: bool) -> io::Result<usize> {
    // (folder, title, has frontmatter): a note is linked by its alias only when it has one.
    let notes: Vec<(usize, String, bool)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let folder = rng.below(FOLDERS.len());
            (folder, words::name(&mut rng, i).1, Rng::for_item(seed ^ 0x7A17, i as u64).chance(80))
        })
        .collect();
    w.write(".obsidian/app.json", "{\n  \"alwaysUpdateLinks\": true\n}\n")?;
    for k in 0..ATTACHMENTS {
        w.write(&format!("attachments/diagram-{k}.png"), "PNG placeholder\n")?;
    }
    par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0x7A17, i as u64);
        let (folder, title, frontmatter) = &notes[i];
        let mut text = String::new();
        // The same draw as `notes` made for this note.
        if rng.chance(80) && *frontmatter {
            text.push_str(&format!(
                "---\ntags: [{}]\naliases: [{}]\ncreated: {}\nrelated: [\"[[{}]]\"]\n---\n\n",
                words::tags(&mut rng).join(", "),
                alias(title),
                words::date(&mut rng),
                notes[rng.below(n)].1
            ));
        }
        let count = if wild { rng.range(3, 7) } else { rng.range(2, 8) };
        let links: Vec<String> = (0..count).map(|_| link(&mut rng, &notes, i, wild)).collect();
        let mut b = body::build(&mut rng, 1400, &["## Notes", "## Connections"], &links);
        b.text.push_str(&format!("{} ^blk-{i}\n", words::sentence(&mut rng, 6, 10)));
        text.push_str(&format!("# {title}\n\n"));
        text.push_str(&b.text);
        w.write(&format!("{}/{title}.md", FOLDERS[*folder]), &text)?;
        Ok(b.links)
    })
}

/// The alias a note's frontmatter gives it: its title in lower case with hyphens.
fn alias(title: &str) -> String {
    title.to_lowercase().replace(' ', "-")
}

/// One link from note `from`, in the proportions of a real vault (`wild`: of a real store's,
/// 55 % markdown links, 1 % broken, the rest Obsidian's link forms).
fn link(rng: &mut Rng, notes: &[(usize, String, bool)], from: usize, wild: bool) -> String {
    let n = notes.len();
    let to = rng.below(n);
    let (folder, title, has_alias) = &notes[to];
    let folder = FOLDERS[*folder];
    let form = if wild {
        match rng.below(100) {
            0 => return format!("[[Missing Page {}]]", (from + to) % 997),
            1..56 => return format!("[{title}](../{folder}/{}.md)", title.replace(' ', "%20")),
            _ => rng.below(92),
        }
    } else {
        rng.below(100)
    };
    match form {
        0..35 => format!("[[{title}]]"),
        35..45 => format!("[[{title}|{}]]", title.to_lowercase()),
        45..53 if *has_alias => format!("[[{}]]", alias(title)),
        45..53 => format!("[[{title}]]"),
        53..61 => format!("[[{}]]", title.to_lowercase()),
        61..69 => format!("[[{folder}/{title}]]"),
        69..77 => format!("[[{title}#{}]]", if rng.chance(50) { "Notes" } else { "Connections" }),
        77..82 => format!("[[{title}#^blk-{to}]]"),
        82..88 => format!("![[{title}]]"),
        88..92 => format!("![[diagram-{}.png]]", rng.below(ATTACHMENTS)),
        92..97 => format!("[{title}](../{folder}/{}.md)", title.replace(' ', "%20")),
        _ => format!("[[Missing Page {}]]", (from + to) % 997),
    }
}
