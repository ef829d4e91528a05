//! OKF bundles: one folder per `type`, shards of ≤400 concepts below it, an `index.md` catalog
//! in every folder (the reference generator's grammar, so `folio index --check` finds them
//! fresh), a root `log.md`, and ≈5.5 links per concept (mostly relative, some `/absolute`,
//! some external, a few broken). Frontmatter mixes the v0.2 shape (flow maps, `sources`
//! mappings, `status`) with the v0.1 one (quoted `timestamp`, block-list tags, folded
//! descriptions). Files average ≈2.8 KB.
use std::collections::BTreeMap;
use std::io;

use super::rng::Rng;
use super::{Writer, body, par_items, words};

/// (type, folder) pairs; the weights below skew the mix towards tables and metrics.
const TYPES: &[(&str, &str)] = &[
    ("BigQuery Table", "tables"),
    ("Metric", "metrics"),
    ("Playbook", "playbooks"),
    ("API Endpoint", "endpoints"),
    ("Reference", "references"),
    ("BigQuery Dataset", "datasets"),
];
const TYPE_WEIGHTS: &[usize] = &[30, 25, 15, 12, 12, 6];
const SHARD: usize = 400;
/// The body budget; whole paragraphs and link text bring the mean file to ≈2.8 KB.
const FILE_BYTES: usize = 2250;

struct Concept {
    ty: usize,
    /// Path relative to the bundle root.
    path: String,
    title: String,
    description: String,
}

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let concepts = plan(n, seed);
    let links = par_items(n, |i| write_concept(w, &concepts, i, seed))?;
    write_catalogs(w, &concepts)?;
    let mut log = String::from("# Directory Update Log\n\n");
    let mut rng = Rng::new(seed);
    for day in (1..=5).rev() {
        log.push_str(&format!(
            "## 2026-05-{day:02}\n* **Update**: Regenerated {} concepts.\n\n",
            rng.range(1, n.max(1))
        ));
    }
    w.write(folio_core::store::dialect::okf::spec::LOG, &log)?;
    Ok(links)
}

fn plan(n: usize, seed: u64) -> Vec<Concept> {
    let mut per_type = vec![0usize; TYPES.len()];
    (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let ty = weighted(&mut rng, TYPE_WEIGHTS);
            let (slug, title) = words::name(&mut rng, i);
            let shard = per_type[ty] / SHARD;
            per_type[ty] += 1;
            let description = words::sentence(&mut rng, 8, 16);
            Concept { ty, path: format!("{}/g{shard:03}/{slug}.md", TYPES[ty].1), title, description }
        })
        .collect()
}

fn weighted(rng: &mut Rng, weights: &[usize]) -> usize {
    let mut roll = rng.below(weights.iter().sum());
    for (i, w) in weights.iter().enumerate() {
        if roll < *w {
            return i;
        }
        roll -= w;
    }
    weights.len() - 1
}

fn write_concept(w: &Writer, all: &[Concept], i: usize, seed: u64) -> io::Result<usize> {
    let c = &all[i];
    // A different stream from the plan's, so bodies can change without renaming concepts.
    let mut rng = Rng::for_item(seed ^ 0x0CF0_0CF0, i as u64);
    let mut text = frontmatter(&mut rng, c);
    let links = links(&mut rng, all, i);
    let headings: &[&str] = match TYPES[c.ty].0 {
        "BigQuery Table" | "BigQuery Dataset" => &["# Schema", "# Examples", "# Citations"],
        "Playbook" => &["# When to use", "# Steps", "# Pitfalls"],
        _ => &["# Definition", "# Computation", "# Trust and freshness"],
    };
    let b = body::build(&mut rng, FILE_BYTES.saturating_sub(text.len()), headings, &links);
    text.push('\n');
    text.push_str(&b.text);
    w.write(&c.path, &text)?;
    Ok(b.links)
}

fn frontmatter(rng: &mut Rng, c: &Concept) -> String {
    let ty = TYPES[c.ty].0;
    let mut f = format!("---\ntype: {ty}\ntitle: {}\n", c.title);
    let v01 = rng.chance(20);
    if v01 && c.description.len() > 80 {
        // PyYAML folds long plain scalars onto an indented continuation line.
        let cut = c.description[..60].rfind(' ').unwrap_or(60);
        f.push_str(&format!("description: {}\n  {}\n", &c.description[..cut], &c.description[cut + 1..]));
    } else {
        f.push_str(&format!("description: {}\n", c.description));
    }
    if rng.chance(85) {
        let stem = c.path.rsplit('/').next().unwrap_or(&c.path).trim_end_matches(".md");
        f.push_str(&format!("resource: https://console.cloud.google.com/bigquery?p=acme&t={stem}\n"));
    }
    let tags = words::tags(rng);
    if v01 {
        f.push_str("tags:\n");
        for t in &tags {
            f.push_str(&format!("- {t}\n"));
        }
        f.push_str(&format!("timestamp: '{}'\n", words::datetime(rng).replace('Z', "+00:00")));
        return f + "---\n";
    }
    f.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    f.push_str(&format!("generated: {{ by: reference_agent/gemini-2.5-pro, at: {} }}\n", words::datetime(rng)));
    if rng.chance(15) {
        f.push_str(&format!(
            "verified:\n  - {{ by: human:reviewer{}@acme, at: {} }}\n",
            rng.below(9),
            words::datetime(rng)
        ));
    }
    if rng.chance(30) {
        f.push_str(&format!("status: {}\n", rng.pick(&["draft", "stable", "deprecated"])));
    }
    if rng.chance(60) {
        f.push_str("sources:\n");
        for s in 0..rng.range(1, 2) {
            let noun = *rng.pick(words::NOUNS);
            f.push_str(&format!(
                "  - id: {noun}-src-{s}\n    resource: policies/{noun}-standard.md\n    title: {} Standard\n    last_modified: {}\n",
                words::capitalise(noun),
                words::datetime(rng)
            ));
        }
    }
    f + "---\n"
}

/// 3–8 links (mean 5.5): relative paths to concepts in the same and other folders, bundle-
/// absolute ones, some with anchors, a few external and a few broken.
fn links(rng: &mut Rng, all: &[Concept], i: usize) -> Vec<String> {
    let from_dir = all[i].path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    (0..rng.range(3, 8))
        .map(|_| {
            let roll = rng.below(100);
            if roll < 6 {
                return format!("[docs](https://cloud.google.com/bigquery/docs/{})", rng.pick(words::NOUNS));
            }
            if roll < 9 {
                return format!(
                    "[not yet written](/{}/missing-{}.md)",
                    TYPES[rng.below(TYPES.len())].1,
                    rng.below(1000)
                );
            }
            // Neighbours are more likely than strangers: agents link within a topic.
            let j = if rng.chance(50) { (i + rng.range(1, 40)).min(all.len() - 1) } else { rng.below(all.len()) };
            let t = &all[j];
            let anchor = if rng.chance(10) { "#schema" } else { "" };
            if roll < 30 {
                format!("[{}](/{}{anchor})", t.title, t.path)
            } else {
                format!("[{}]({}{anchor})", t.title, relative(from_dir, &t.path))
            }
        })
        .collect()
}

/// The relative link from a folder to a file (`a/b` → `a/c/x.md` is `../c/x.md`).
fn relative(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|s| !s.is_empty()).collect();
    let target: Vec<&str> = to.split('/').collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut out = if common == from.len() { String::from("./") } else { "../".repeat(from.len() - common) };
    out.push_str(&target[common..].join("/"));
    out
}

/// `index.md` in every folder, in the reference generator's grammar.
fn write_catalogs(w: &Writer, all: &[Concept]) -> io::Result<()> {
    let mut direct: BTreeMap<&str, Vec<&Concept>> = BTreeMap::new();
    let mut children: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for c in all {
        let dir = c.path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        direct.entry(dir).or_default().push(c);
        let mut d = dir;
        while let Some((parent, _)) = d.rsplit_once('/') {
            children.entry(parent).or_default().insert(d);
            d = parent;
        }
        children.entry("").or_default().insert(d);
    }
    let dirs: std::collections::BTreeSet<&str> = direct.keys().chain(children.keys()).copied().collect();
    for dir in dirs {
        let mut out = String::new();
        if let Some(entries) = direct.get_mut(dir) {
            entries.sort_by_cached_key(|c| (c.title.to_lowercase(), c.path.clone()));
            out.push_str(&format!("# {}\n\n", TYPES[entries[0].ty].0));
            for c in entries.iter() {
                let file = c.path.rsplit('/').next().unwrap_or(&c.path);
                out.push_str(&format!("* [{}]({file}) - {}\n", c.title, c.description));
            }
        }
        if let Some(subs) = children.get(dir) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("# Subdirectories\n\n");
            for sub in subs {
                let name = sub.rsplit('/').next().unwrap_or(sub);
                out.push_str(&format!("* [{name}]({name}/index.md) - Concepts under {name}.\n"));
            }
        }
        let catalog = folio_core::store::dialect::okf::spec::CATALOG;
        let path = if dir.is_empty() { catalog.to_string() } else { format!("{dir}/{catalog}") };
        w.write(&path, &out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("tables/g000", "tables/g000/x.md"), "./x.md");
        assert_eq!(relative("tables/g000", "metrics/g001/y.md"), "../../metrics/g001/y.md");
        assert_eq!(relative("tables/g000", "tables/g001/y.md"), "../g001/y.md");
    }

    #[test]
    fn plan_shards_by_type() {
        let p = plan(2000, 1);
        assert_eq!(p.len(), 2000);
        assert!(p.iter().all(|c| c.path.starts_with(TYPES[c.ty].1)));
        assert!(p.iter().any(|c| c.path.contains("/g001/")));
    }
}
