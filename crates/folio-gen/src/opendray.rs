//! opendray exports in folio's export layout (docs/opendray-export.md): the
//! `opendray-export.json` root marker and one markdown file per graph node
//! (`entities/<entity_type>/<id>.md`, `facts/`, `playbooks/`, `skills/<name>/SKILL.md`), its
//! Appendix-A fields as YAML frontmatter (`relations` mapping, `aliases`, `maturity`,
//! `evidence`) and `[[id]]` / `[[id|alias]]` links in the body.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const KINDS: &[&str] = &["entity", "fact", "playbook", "skill"];
const ENTITY_TYPES: &[&str] = &["service", "host", "project", "tool", "decision", "tech", "person"];
const EDGES: &[&str] = &["runs_on", "uses", "about", "part_of", "depends_on", "used_by"];

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let nodes: Vec<(usize, String, String, &str)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let kind = if rng.chance(60) { 0 } else { rng.below(KINDS.len()) };
            let (slug, title) = words::name(&mut rng, i);
            let entity_type = *rng.pick(ENTITY_TYPES);
            (kind, format!("{}-{slug}", &KINDS[kind][..2]), title, entity_type)
        })
        .collect();
    w.write(
        "opendray-export.json",
        &format!(
            "{{\n  \"format\": \"opendray-export/v1\",\n  \"exported_at\": \"2026-08-20T09:14:00Z\",\n  \"source\": \"folio-gen seed {seed}, {n} nodes\"\n}}\n"
        ),
    )?;
    par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0xD4A7, i as u64);
        let (kind, id, title, entity_type) = &nodes[i];
        let mut text = format!("---\nid: {id}\nkind: {}\n", KINDS[*kind]);
        if *kind == 0 {
            text.push_str(&format!("entity_type: {entity_type}\n"));
        }
        text.push_str(&format!("title: {title}\naliases: [{}]\n", words::name(&mut rng, i).0));
        // Two different edge types: a mapping cannot repeat a key.
        let first = rng.below(EDGES.len());
        let second = (first + rng.range(1, EDGES.len() - 1)) % EDGES.len();
        // opendray has no self-edges: a target that is the node itself moves to its neighbour.
        let other = |rng: &mut Rng| {
            let t = rng.below(n);
            if t == i { (t + 1) % n } else { t }
        };
        let (a, b) = (other(&mut rng), other(&mut rng));
        text.push_str(&format!(
            "relations: {{ {}: [{}], {}: [{}] }}\n",
            EDGES[first], nodes[a].1, EDGES[second], nodes[b].1
        ));
        text.push_str(&format!(
            "scope: {}\nmaturity: {}\nconfidence: 0.{}\nevidence: {{ applied: {}, ok: {} }}\nprovenance: {{ source: reflection }}\n---\n\n",
            rng.pick(&["project", "domain", "global"]),
            rng.pick(&["candidate", "fact", "playbook", "skill"]),
            rng.range(5, 9),
            rng.range(1, 9),
            rng.range(0, 1),
        ));
        let links: Vec<String> = (0..rng.range(1, 4))
            .map(|_| {
                let (_, target, t, _) = &nodes[rng.below(n)];
                if rng.chance(30) { format!("[[{target}|{t}]]") } else { format!("[[{target}]]") }
            })
            .collect();
        let b = body::build(&mut rng, 1000, &["## Notes"], &links);
        text.push_str(&format!("# {title}\n\n"));
        text.push_str(&b.text);
        let path = match KINDS[*kind] {
            "entity" => format!("entities/{entity_type}/{id}.md"),
            "fact" => format!("facts/{id}.md"),
            "playbook" => format!("playbooks/{id}.md"),
            _ => format!("skills/{id}/SKILL.md"),
        };
        w.write(&path, &text)?;
        Ok(b.links)
    })
}
