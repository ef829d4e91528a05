//! EloPhanto `knowledge/` trees: `system/`, `user/` and `learned/lessons/` files with
//! PyYAML-dumped frontmatter (alphabetical keys, quoted dates, comma-string tags) and a
//! `## Related` section of `[[relative/path.md]]` links.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const SCOPES: &[(&str, &str)] = &[("system", "system"), ("user", "user"), ("learned", "learned/lessons")];

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            // Always at least one system file: detection looks for `knowledge/system`.
            let scope = if i == 0 { 0 } else { rng.below(SCOPES.len()) };
            let (slug, title) = words::name(&mut rng, i);
            (format!("{}/{slug}.md", SCOPES[scope].1), title)
        })
        .collect();
    par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0xE1, i as u64);
        let (path, title) = &files[i];
        let scope = SCOPES.iter().find(|s| path.starts_with(s.1)).map(|s| s.0).unwrap_or("system");
        let mut text = format!(
            "---\ncreated: '{}'\nscope: {scope}\ntags: {}\ntitle: {title}\nupdated: '{}'\n---\n\n# {title}\n\n",
            words::date(&mut rng),
            words::tags(&mut rng).join(", "),
            words::date(&mut rng),
        );
        let b = body::build(&mut rng, 1200, &["## When This Applies", "## Lesson"], &[]);
        text.push_str(&b.text);
        let related: Vec<String> = (0..rng.range(0, 3)).map(|_| format!("- [[{}]]", files[rng.below(n)].0)).collect();
        if !related.is_empty() {
            text.push_str("## Related\n\n");
            text.push_str(&related.join("\n"));
            text.push('\n');
        }
        w.write(&format!("knowledge/{path}"), &text)?;
        Ok(related.len())
    })
}
