//! evolve stores: `<project>/.evolve/entities/<type>/<slug>.md` with evolve's raw
//! `key: value` frontmatter (colons inside values, nothing quoted), `[[slug]]` links, an
//! optional `## Rationale`, and a JSON Lines `audit.log` beside the entities.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const TYPES: &[&str] = &["guideline", "feedback", "project", "reference"];

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let slugs: Vec<(usize, String)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let ty = if rng.chance(70) { 0 } else { rng.below(TYPES.len()) };
            (ty, words::name(&mut rng, i).0)
        })
        .collect();
    let links = par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0xE0, i as u64);
        let (ty, slug) = &slugs[i];
        let mut text = format!(
            "---\ntype: {}\ntrigger: When {}: {}\ntrajectory: .evolve/trajectories/trajectory_{}.json\n",
            TYPES[*ty],
            words::sentence(&mut rng, 6, 6).trim_end_matches('.').to_lowercase(),
            words::sentence(&mut rng, 5, 5).trim_end_matches('.').to_lowercase(),
            words::datetime(&mut rng).trim_end_matches('Z').replace(':', "-"),
        );
        if rng.chance(30) {
            text.push_str(&format!(
                "owner: agent{}\nvisibility: public\npublished_at: {}\n",
                rng.below(5),
                words::datetime(&mut rng)
            ));
        }
        text.push_str("---\n\n");
        let links: Vec<String> = (0..rng.range(1, 5))
            .map(|_| {
                // A `[[name]]` with no file yet marks something worth writing: evolve allows it.
                if rng.chance(5) {
                    format!("[[unwritten-{}]]", rng.below(1000))
                } else {
                    format!("[[{}]]", slugs[rng.below(n)].1)
                }
            })
            .collect();
        let b = body::build(&mut rng, 900, &["## Guideline", "## Rationale"], &links);
        text.push_str(&b.text);
        w.write(&format!(".evolve/entities/{}/{slug}.md", TYPES[*ty]), &text)?;
        Ok(b.links)
    })?;
    let mut audit = String::new();
    let mut rng = Rng::new(seed);
    for k in 0..n.min(200) {
        let (ty, slug) = &slugs[rng.below(n)];
        audit.push_str(&format!(
            "{{\"event\": \"recall\", \"session_id\": \"s{k}\", \"entities\": [\"{}/{slug}\"], \"ts\": \"{}\"}}\n",
            TYPES[*ty],
            words::datetime(&mut rng)
        ));
    }
    w.write(".evolve/audit.log", &audit)?;
    Ok(links)
}
