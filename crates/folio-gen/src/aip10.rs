//! AIP-10 wikis: `KNOWLEDGE.md` manifest, `AGENTS.md`, generated `_index.md`, `_log.md`,
//! `_manifest.json`, raw `sources/`, and `knowledge.entry/v1` pages under
//! `entities/ concepts/ summaries/ timelines/` linked by `[[slug]]` and relative paths.
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

const KINDS: &[(&str, &str)] =
    &[("entity", "entities"), ("concept", "concepts"), ("summary", "summaries"), ("timeline", "timelines")];
const SOURCES: usize = 20;

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let pages: Vec<(usize, String, String)> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let kind = rng.below(KINDS.len());
            let (slug, title) = words::name(&mut rng, i);
            (kind, slug, title)
        })
        .collect();
    w.write(
        "KNOWLEDGE.md",
        "---\nschema: knowledge.workspace/v1\nname: generated-wiki\ntitle: Generated Wiki\n\
         description: A generated AIP-10 wiki for benchmarks.\nversion: 1.0.0\n---\n\n# Generated Wiki\n",
    )?;
    w.write("AGENTS.md", "# Agents\n\nCurate this wiki with the curate-wiki skill.\n")?;
    // Views, each extending the one above it (`extends:` chains, as a team's wiki layers them):
    // views/team, views/team/payments, views/team/payments/refunds.
    let mut view = String::from("views");
    let mut parent = String::from("../../KNOWLEDGE.md");
    for name in ["team", "payments", "refunds"] {
        view = format!("{view}/{name}");
        w.write(
            &format!("{view}/KNOWLEDGE.md"),
            &format!(
                "---\nschema: knowledge.workspace/v1\nname: {name}\nextends: {parent}\nappliesTo: [\"{}\"]\n---\n\n# {name}\n",
                KINDS[0].1
            ),
        )?;
        parent = "../KNOWLEDGE.md".into();
    }
    for s in 0..SOURCES {
        w.write(&format!("sources/source-{s}.txt"), &format!("Raw source {s}.\n"))?;
    }
    let links = par_items(n, |i| {
        let mut rng = Rng::for_item(seed ^ 0xA10, i as u64);
        let (kind, slug, title) = &pages[i];
        let mut text = format!(
            "---\nschema: knowledge.entry/v1\nslug: {slug}\nkind: {}\ntitle: {title}\nsources: [source-{}]\n\
             confidence: 0.{}\nupdated_at: {}\ntags: [{}]\n",
            KINDS[*kind].0,
            rng.below(SOURCES),
            rng.range(5, 9),
            words::datetime(&mut rng),
            words::tags(&mut rng).join(", "),
        );
        if rng.chance(10) {
            text.push_str(&format!("supersedes: [{}]\n", pages[rng.below(n)].1));
        }
        text.push_str("---\n\n");
        let links: Vec<String> = (0..rng.range(2, 6))
            .map(|_| {
                let (k, s, t) = &pages[rng.below(n)];
                if rng.chance(70) { format!("[[{s}]]") } else { format!("[{t}](../{}/{s}.md)", KINDS[*k].1) }
            })
            .collect();
        let b = body::build(&mut rng, 1600, &["## Summary", "## Details"], &links);
        text.push_str(&format!("# {title}\n\n"));
        text.push_str(&b.text);
        w.write(&format!("{}/{slug}.md", KINDS[*kind].1), &text)?;
        Ok(b.links)
    })?;
    let mut index = String::new();
    for (k, (kind, dir)) in KINDS.iter().enumerate() {
        index.push_str(&format!("# {kind}\n\n"));
        for (_, slug, title) in pages.iter().filter(|p| p.0 == k) {
            index.push_str(&format!("* [{title}]({dir}/{slug}.md) - {slug}\n"));
        }
        index.push('\n');
    }
    w.write(folio_core::store::dialect::aip10::spec::CATALOG, &index)?;
    w.write(
        folio_core::store::dialect::aip10::spec::LOG,
        "## [2026-04-27T15:30:00Z] ingest | source-0\n\n- Created the wiki.\n",
    )?;
    w.write("_manifest.json", "{ \"version\": 1, \"hashAlgo\": \"sha256\", \"sources\": {} }\n")?;
    Ok(links)
}
