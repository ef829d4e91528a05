//! Markdown bodies: headings, prose, tables and code blocks with links woven in, grown to a
//! byte budget. Link-like text inside code is written on purpose: a reader must not count it.
use super::rng::Rng;
use super::words;

/// A body and how many links it holds outside code.
pub struct Body {
    pub text: String,
    pub links: usize,
}

/// A body of about `budget` bytes holding every link in `links` (already formatted markdown),
/// spread over sections named by `headings`.
pub fn build(rng: &mut Rng, budget: usize, headings: &[&str], links: &[String]) -> Body {
    let mut text = String::with_capacity(budget + 256);
    let mut pending = links.iter();
    let per_section = links.len().div_ceil(headings.len().max(1)).max(1);
    for (s, heading) in headings.iter().enumerate() {
        text.push_str(heading);
        text.push_str("\n\n");
        let mut para = words::paragraph(rng, 2, 4);
        for link in pending.by_ref().take(per_section) {
            para.push_str(" See ");
            para.push_str(link);
            para.push_str(". ");
            para.push_str(&words::sentence(rng, 6, 12));
        }
        text.push_str(&para);
        text.push_str("\n\n");
        match (s + rng.below(3)) % 4 {
            0 => code_block(rng, &mut text),
            1 => table(rng, &mut text),
            _ => {}
        }
        let remaining_sections = headings.len() - s;
        let target = budget.saturating_sub(text.len()) / remaining_sections;
        let goal = text.len() + target;
        // Stop when another paragraph (≈250 bytes) would overshoot more than it undershoots.
        while text.len() + 125 < goal {
            text.push_str(&words::paragraph(rng, 2, 5));
            text.push_str("\n\n");
        }
    }
    Body { text, links: links.len() }
}

/// A fenced code block; a third of them quote a link, which is code, not a link.
fn code_block(rng: &mut Rng, out: &mut String) {
    let noun = *rng.pick(words::NOUNS);
    out.push_str("```sql\n");
    out.push_str(&format!("SELECT {noun}_id, SUM(amount) AS total\nFROM {noun}s\nGROUP BY 1\n"));
    if rng.chance(33) {
        out.push_str(&format!("-- documented in [{noun}]({noun}.md) and [[{noun}]]\n"));
    }
    out.push_str("```\n\n");
}

fn table(rng: &mut Rng, out: &mut String) {
    out.push_str("| column | type | description |\n|---|---|---|\n");
    for _ in 0..rng.range(2, 5) {
        let noun = *rng.pick(words::NOUNS);
        let ty = *rng.pick(&["STRING", "INT64", "TIMESTAMP", "NUMERIC"]);
        out.push_str(&format!("| `{noun}_id` | {ty} | {} |\n", words::sentence(rng, 6, 6)));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_holds_every_link_and_meets_the_budget() {
        let links: Vec<String> = (0..5).map(|i| format!("[n{i}](n{i}.md)")).collect();
        let b = build(&mut Rng::new(9), 2400, &["# One", "# Two"], &links);
        assert_eq!(b.links, 5);
        for l in &links {
            assert_eq!(b.text.matches(l.as_str()).count(), 1, "{l}");
        }
        assert!(b.text.len() >= 2000 && b.text.len() < 3400, "{}", b.text.len());
    }
}
