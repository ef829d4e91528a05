//! The headless face: one file per subcommand, each a thin layer over `store`.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod argv;
pub mod blame;
pub mod cache;
pub mod common;
pub mod completions;
pub mod escape;
pub mod graph;
pub mod history;
pub mod index;
pub mod lint;
mod lint_json;
pub mod log;
pub mod migrate;
pub mod mv;
pub mod pretty_json;
pub mod recall;
pub mod restore;
pub mod review;
mod review_list;
pub mod reviewer;
pub mod set;
pub mod show;
pub mod stats;
pub mod undo;
pub mod unset;
pub mod write_flags;

/// folio — review and curate the knowledge AI agents write as markdown.
#[derive(Parser, Debug)]
#[command(name = "folio", version, about, long_about = None)]
pub struct Cli {
    /// Read the store as this dialect instead of detecting it
    /// (okf, evolve, aip10, elophanto, opendray, awareness, vault, opendray-pg).
    #[arg(long, global = true, value_name = "NAME", value_parser = parse_dialect)]
    pub dialect: Option<folio_core::store::dialect::DialectKind>,
    /// Use the demo store bundled in the binary instead of PATH.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Open the store NAME among several side by side in PATH (a folder of OKF bundles).
    #[arg(long, global = true, value_name = "NAME")]
    pub bundle: Option<String>,
    /// Show archived entities where the store hides them (opendray's database).
    #[arg(long, global = true)]
    pub archived: bool,
    /// Read every file instead of using the persistent cache (also `FOLIO_NO_CACHE=1`).
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Colour in the terminal UI: auto (honours NO_COLOR), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Store to open: a folder, or a PostgreSQL connection string for opendray's live brain
    /// (default: FOLIO_DATABASE_URL, else the store found from the current directory upward).
    pub path: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show one entity: fields, links, backlinks, typed edges.
    Show(show::Args),
    /// Summarise a store: dialect, entities by kind, links, orphans, stale catalogs.
    Stats(stats::Args),
    /// Export the link graph (DOT, Mermaid or JSON), whole or around one entity.
    Graph(graph::Args),
    /// Fuzzy-find entities by id, title, aliases, tags and description.
    Recall(recall::Args),
    /// Regenerate the store's catalog files (index.md / _index.md), or check them.
    Index(index::Args),
    /// Check the store against every lint rule (text, JSON or SARIF); show safe fixes.
    Lint(lint::Args),
    /// Set one frontmatter field of an entity (only that key's bytes change).
    Set(set::Args),
    /// Remove one frontmatter field of an entity.
    Unset(unset::Args),
    /// Move or rename an entity, repointing every link and typed edge that names it.
    Mv(mv::Args),
    /// Align an evolve store or a vault with OKF (catalogs, markdown links, description).
    Migrate(migrate::Args),
    /// Revert the last change folio made, if its files still hold what folio wrote.
    Undo(undo::Args),
    /// The store's audit trail (the agents' events and folio's), newest first.
    Log(log::Args),
    /// One entity's past: git commits of its file (following renames), uncommitted changes and
    /// the events naming it in the store's log; `--diff A..B`, `--deleted`.
    History(history::Args),
    /// Each line of an entity with the version that brought it, following renames.
    Blame(blame::Args),
    /// Write a past version of an entity back (undoable; git is left alone).
    Restore(restore::Args),
    /// The review inbox: list, show, approve, veto, forget, promote, merge, undo.
    Review(review::Args),
    /// The persistent store cache: where it is, what it holds; clear it.
    Cache(cache::Args),
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions(completions::CompletionsArgs),
    /// Print folio's man page (roff), or write one page per command with `--dir DIR`.
    Man(completions::ManArgs),
}

fn parse_dialect(s: &str) -> Result<folio_core::store::dialect::DialectKind, String> {
    folio_core::store::dialect::by_name(s).ok_or_else(|| {
        format!("unknown dialect `{s}` (expected one of: {})", folio_core::store::dialect::names().join(", "))
    })
}

/// Exit codes: 0 ok, 1 the command's finding, 2 usage or I/O error.
pub const EXIT_FINDING: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

/// Parse arguments and run; errors are printed as one line naming the file.
pub fn run() -> ExitCode {
    let cli = Cli::parse_from(argv::normalize(std::env::args_os().collect()));
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("folio: {}", escape::line(&format!("{e:#}")));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    folio_core::store::read::detect::set_show_archived(cli.archived);
    let cache = if cli.no_cache { None } else { folio_core::store::keep::cache::Cache::from_env() };
    let g = common::Global { dialect: cli.dialect, demo: cli.demo, cache, bundle: cli.bundle.clone() };
    match cli.command {
        Some(Command::Show(a)) => show::run(&g, a),
        Some(Command::Stats(a)) => stats::run(&g, a),
        Some(Command::Graph(a)) => graph::run(&g, a),
        Some(Command::Recall(a)) => recall::run(&g, a),
        Some(Command::Index(a)) => index::run(&g, a),
        Some(Command::Lint(a)) => lint::run(&g, a),
        Some(Command::Set(a)) => set::run(&g, a),
        Some(Command::Unset(a)) => unset::run(&g, a),
        Some(Command::Mv(a)) => mv::run(&g, a),
        Some(Command::Migrate(a)) => migrate::run(&g, a),
        Some(Command::Undo(a)) => undo::run(&g, a),
        Some(Command::Log(a)) => log::run(&g, a),
        Some(Command::History(a)) => history::run(&g, a),
        Some(Command::Blame(a)) => blame::run(&g, a),
        Some(Command::Restore(a)) => restore::run(&g, a),
        Some(Command::Review(a)) => review::run(&g, a),
        Some(Command::Cache(a)) => cache::run(&g, a),
        Some(Command::Completions(a)) => completions::run_completions(a),
        Some(Command::Man(a)) => completions::run_man(a),
        None => {
            use std::io::IsTerminal;
            // Scripts and pipes get the store's summary; the UI needs a terminal on both ends.
            if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
                eprintln!("folio: not a terminal, so printing the summary instead of opening the UI");
                return stats::run(&g, stats::Args { path: cli.path, json: false });
            }
            let source = folio_tui::app::jobs::Source {
                path: cli.path,
                dialect: cli.dialect,
                demo: cli.demo,
                no_cache: cli.no_cache,
                bundle: cli.bundle.clone(),
            };
            let color = folio_tui::app::settings::config::ColorChoice::from_name(&cli.color).unwrap_or_default();
            folio_tui::tui::run(source, color)?;
            Ok(0)
        }
    }
}
