//! `folio graph`: the link graph as DOT, Mermaid or JSON, whole or around one entity.
use std::path::PathBuf;

use super::common::{Global, find_entity, open_store, print_json};
use super::escape;
use folio_core::store::model::graph;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum Format {
    #[default]
    Dot,
    Mermaid,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Dot)]
    pub format: Format,
    /// Only the neighbourhood of this entity.
    #[arg(long, value_name = "ID")]
    pub around: Option<String>,
    /// Hops from --around, following links both ways.
    #[arg(long, default_value_t = 1, requires = "around", value_parser = clap::value_parser!(u8).range(0..=8))]
    pub depth: u8,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let store = open_store(g, a.path.as_deref())?;
    let sub = match &a.around {
        Some(id) => graph::around(&store, find_entity(&store, id)?, a.depth as usize),
        None => graph::whole(&store),
    };
    match a.format {
        // Labels are agent-written: controls and bidi overrides are shown as escapes.
        Format::Dot => print!("{}", escape::text(&graph::to_dot(&store, &sub))),
        Format::Mermaid => print!("{}", escape::text(&graph::to_mermaid(&store, &sub))),
        Format::Json => print_json(&graph::to_json(&store, &sub)),
    }
    Ok(0)
}
