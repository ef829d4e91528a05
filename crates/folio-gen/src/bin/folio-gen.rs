//! `folio-gen`: write a realistic, deterministic store of N entities for benchmarks.
//!
//! `folio-gen --dialect okf --entities 100000 --out /tmp/okf-100k [--seed 7] [--git-commits 10000]`
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use folio_core::store::dialect::DialectKind;

/// Generate a store in one of folio's dialects.
#[derive(Parser, Debug)]
#[command(name = "folio-gen", version, about)]
struct Args {
    /// okf, evolve, aip10, elophanto, opendray, awareness, vault or opendray-pg.
    #[arg(long, value_parser = parse_dialect)]
    dialect: DialectKind,
    /// How many entities to write.
    #[arg(long)]
    entities: usize,
    /// Folder to create (must be missing or empty); for opendray-pg, the connection string of
    /// a database where opendray's migrations have run and no node exists yet.
    #[arg(long)]
    out: PathBuf,
    /// Random seed: the same seed writes byte-identical files.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Make the store a git repository with this many commits of agent edits after the first
    /// (one entity, the "hot" one, edited in one commit of ten and renamed halfway).
    #[arg(long, value_name = "N")]
    git_commits: Option<usize>,
    /// `tidy` (each dialect's clean files) or `wild` (as real stores are: mixed and broken
    /// links, malformed frontmatter, CRLF, non-UTF-8 and multi-MB files, edges, stale dates).
    #[arg(long, default_value = "tidy", value_parser = parse_shape)]
    shape: folio_gen::Shape,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

fn parse_dialect(s: &str) -> Result<DialectKind, String> {
    folio_core::store::dialect::by_name(s).ok_or_else(|| format!("unknown dialect `{s}`"))
}

fn parse_shape(s: &str) -> Result<folio_gen::Shape, String> {
    folio_gen::Shape::parse(s).ok_or_else(|| format!("unknown shape `{s}` (tidy or wild)"))
}

fn main() -> ExitCode {
    let a = Args::parse();
    let started = Instant::now();
    let made = if a.dialect.spec().store_is_folder {
        folio_gen::generate_shaped(a.dialect, a.entities, a.seed, &a.out, a.shape).map_err(|e| e.to_string())
    } else if a.shape == folio_gen::Shape::Wild {
        Err("--shape wild roughens files; a database has none".into())
    } else if a.git_commits.is_some() {
        Err("--git-commits makes a folder store a git repository; a database has no files to commit".into())
    } else {
        folio_gen::fill_database(a.dialect, a.entities, a.seed, &a.out.to_string_lossy())
    };
    let generated = made.and_then(|r| {
        let git = match a.git_commits {
            Some(n) => Some(folio_gen::git::commit_history(&r.store, n, a.seed).map_err(|e| e.to_string())?),
            None => None,
        };
        Ok((r, git))
    });
    match generated {
        Ok((r, git)) => {
            let ms = started.elapsed().as_millis();
            if a.json {
                let mut v = serde_json::json!({
                    "dialect": r.dialect.name(), "entities": r.entities, "files": r.files,
                    "bytes": r.bytes, "links": r.links, "store": r.store.display().to_string(), "ms": ms as u64,
                });
                if let Some(g) = &git {
                    v["git"] = serde_json::json!({"commits": g.commits, "hot": g.hot, "hot_versions": g.hot_versions});
                }
                println!("{v}");
            } else {
                println!(
                    "{}: {} {} entities, {} files, {:.1} MB, {} links in {ms} ms",
                    r.store.display(),
                    r.entities,
                    r.dialect,
                    r.files,
                    r.bytes as f64 / 1e6,
                    r.links
                );
                if let Some(g) = &git {
                    println!("git: {} commits; {} has {} versions", g.commits, g.hot, g.hot_versions);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("folio-gen: {e}");
            ExitCode::from(2)
        }
    }
}
