//! The `wild` shape (issue 44): a store as real agents and people leave it, not as a generator
//! tunes it. It roughens the files a dialect's generator wrote, in the proportions measured on
//! a real 100k vault-shaped store: ≈5.5 links an entity (55 % markdown, 45 % wikilinks, 1 %
//! broken), 0.5 % malformed frontmatter, 1 % CRLF line ends, a few non-UTF-8 files and a few of
//! several MB, 1 % missing a required field, 3 % `supersedes` and 1 % `contradicts` edges, a
//! third past their `stale_after` date, and a curated root catalog with missing and dangling
//! entries. Each file's changes come from its own random stream (its place in path order), so
//! the same seed still writes byte-identical files, in parallel.
use std::io;
use std::path::{Path, PathBuf};

use folio_core::store::dialect::DialectKind;

use super::rng::Rng;
use super::words;

/// Salt of the wild shape's random streams (apart from the dialect generator's own).
const SALT: u64 = 0x3157_11D5;
/// The catalog a vault keeps at its root (a map of content note): `index.md` would make the
/// folder an OKF bundle.
const VAULT_CATALOG: &str = "Catalog.md";

/// What the pass changed: links added, and the store's files and bytes afterwards.
pub struct Roughened {
    pub links: usize,
    pub files: usize,
    pub bytes: u64,
}

/// One entity file: its path relative to the root and what links reach it.
struct Entry {
    rel: String,
    stem: String,
}

/// Roughen the store `kind`'s generator wrote into `root`.
pub fn roughen(kind: DialectKind, root: &Path, seed: u64) -> io::Result<Roughened> {
    use rayon::prelude::*;
    let spec = kind.spec();
    let skip = |name: &str| spec.catalog_files.contains(&name) || spec.log_files.contains(&name);
    let mut entries: Vec<Entry> = markdown_files(root)?
        .into_iter()
        .filter(|p| !p.file_name().and_then(|n| n.to_str()).is_some_and(skip))
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            Entry { rel, stem }
        })
        .collect();
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    let n = entries.len();
    // Frontmatter is optional in a vault: a note without it may gain some; elsewhere a file
    // without frontmatter is another kind of file, and keeps its shape.
    let adds_frontmatter = kind == folio_core::store::dialect::vault::KIND;
    if n == 0 {
        let (files, bytes) = tally(root)?;
        return Ok(Roughened { links: 0, files, bytes });
    }
    // A few files of every rare kind, scaled down for small stores: 10 multi-MB and 5 non-UTF-8
    // files at 100k.
    let big = pick(seed ^ 0xB16, n, (n / 10_000).clamp(1, 10));
    let latin1 = pick(seed ^ 0x1A71, n, (n / 20_000).clamp(1, 5));
    let links = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut rng = Rng::for_item(seed ^ SALT, i as u64);
            let path = root.join(&entries[i].rel);
            let text = std::fs::read_to_string(&path)?;
            let (text, links) = rough(&mut rng, &text, &entries, i, big.contains(&i), adds_frontmatter);
            let text = if rng.chance(1) { text.replace('\n', "\r\n") } else { text };
            let bytes = if latin1.contains(&i) { latin1_bytes(&text) } else { text.into_bytes() };
            std::fs::write(&path, bytes)?;
            Ok::<usize, io::Error>(links)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    catalog(kind, root, &entries, seed)?;
    let (files, bytes) = tally(root)?;
    Ok(Roughened { links, files, bytes })
}

/// One file's text, roughened; with the links added.
fn rough(rng: &mut Rng, text: &str, entries: &[Entry], me: usize, big: bool, adds: bool) -> (String, usize) {
    let (front, body) = split_frontmatter(text);
    let has_front = front.is_some() || adds;
    let mut fields: Vec<String> = front.map(|f| f.lines().map(str::to_string).collect()).unwrap_or_default();
    let n = entries.len();
    let other = |rng: &mut Rng| &entries[(me + 1 + rng.below(n.max(2) - 1)) % n];
    // 1 %: a required field missing (the first of the keys every dialect asks for).
    if rng.chance(1)
        && let Some(k) =
            fields.iter().position(|l| ["type:", "description:", "title:"].iter().any(|p| l.starts_with(p)))
    {
        fields.remove(k);
    }
    if rng.chance(3) {
        fields.push(format!("supersedes: {}", other(rng).stem));
    }
    if rng.chance(1) {
        fields.push(format!("contradicts: [{}]", other(rng).stem));
    }
    // A third past their stale date; the rest due within the next years.
    let year = if rng.below(3) == 0 { rng.range(2023, 2025) } else { rng.range(2027, 2030) };
    fields.push(format!("stale_after: {year}-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28)));
    // 0.5 %: frontmatter YAML cannot read (a flow list left open).
    if rng.below(200) == 0 {
        fields.push(format!("tags: [{}, {}", words::NOUNS[rng.below(words::NOUNS.len())], "draft"));
    }
    // ≈5.5 links in all: what the dialect's generator wrote (counted as it reported them; 5
    // on average for the wild vault) plus half the time a "Related" line of mixed styles, 1 %
    // of them to nothing.
    let mut related = Vec::new();
    for _ in 0..rng.range(0, 1) {
        let to = other(rng);
        let broken = rng.chance(1);
        let stem = if broken { format!("{} (deleted)", to.stem) } else { to.stem.clone() };
        if rng.chance(55) {
            let href = relative(&entries[me].rel, &to.rel);
            let href = if broken { href.replace(".md", "-old.md") } else { href };
            related.push(format!("[{}]({})", stem, href.replace(' ', "%20")));
        } else {
            related.push(format!("[[{stem}]]"));
        }
    }
    let mut out = String::with_capacity(text.len() + 512);
    if has_front {
        out.push_str("---\n");
        for l in &fields {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("---\n");
    }
    out.push_str(body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !related.is_empty() {
        out.push_str("\n## Related\n\n");
        out.push_str(&related.join(" · "));
        out.push('\n');
    }
    if big {
        // Several MB of pasted transcript: a log an agent dumped into its note.
        let goal = rng.range(2, 6) << 20;
        out.push_str("\n## Transcript\n\n");
        while out.len() < goal {
            out.push_str(&words::paragraph(rng, 3, 6));
            out.push_str("\n\n");
        }
    }
    (out, related.len())
}

/// The frontmatter block's lines (without fences) and the body after it.
fn split_frontmatter(text: &str) -> (Option<&str>, &str) {
    if let Some(rest) = text.strip_prefix("---\n")
        && let Some(end) = rest.find("\n---\n")
    {
        return (Some(&rest[..end]), &rest[end + 5..]);
    }
    (None, text)
}

/// A relative link from file `from` to file `to` (both relative to the root).
fn relative(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    format!("{}{to}", "../".repeat(depth))
}

/// `k` distinct indices below `n`, chosen by `seed`.
fn pick(seed: u64, n: usize, k: usize) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < k.min(n) {
        let i = rng.below(n);
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The text in Latin-1 where it can be (an editor that saved it so): `é` becomes one byte.
fn latin1_bytes(text: &str) -> Vec<u8> {
    let mut text = text.to_string();
    text.insert_str(text.find("\n---\n").map_or(0, |i| i + 5), "Résumé of the café meeting, señor.\n\n");
    text.chars().map(|c| if (c as u32) < 256 { c as u32 as u8 } else { b'?' }).collect()
}

/// The curated root catalog: the dialect's own (OKF's `index.md`) with 1 % of its entries gone
/// and some that name nothing, or for a vault a catalog note listing every note likewise.
fn catalog(kind: DialectKind, root: &Path, entries: &[Entry], seed: u64) -> io::Result<()> {
    let mut rng = Rng::new(seed ^ 0xCA7A);
    let file = kind.spec().catalog_files.first().copied().unwrap_or(VAULT_CATALOG);
    let path = root.join(file);
    let mut lines: Vec<String> = match std::fs::read_to_string(&path) {
        Ok(t) => t.lines().map(str::to_string).collect(),
        Err(_) if kind == folio_core::store::dialect::vault::KIND => {
            let mut l = vec!["# Catalog".to_string(), String::new()];
            l.extend(entries.iter().map(|e| format!("- [{}]({})", e.stem, e.rel.replace(' ', "%20"))));
            l
        }
        // A dialect with no catalog at its root gets none.
        Err(_) => return Ok(()),
    };
    lines.retain(|l| !(l.starts_with("- [") || l.starts_with("* [")) || !rng.chance(1));
    for k in 0..(entries.len() / 2000).max(2) {
        lines.push(format!("- [Retired page {k}](retired/page-{k}.md)"));
    }
    std::fs::write(path, lines.join("\n") + "\n")
}

/// Every `.md` file under `root`, hidden folders too.
fn markdown_files(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// Files and bytes under `root`.
fn tally(root: &Path) -> io::Result<(usize, u64)> {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
            let e = e?;
            let m = e.metadata()?;
            if m.is_dir() {
                stack.push(e.path());
            } else {
                files += 1;
                bytes += m.len();
            }
        }
    }
    Ok((files, bytes))
}
