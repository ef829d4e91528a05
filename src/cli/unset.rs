//! `folio unset [PATH] ID KEY`: remove one frontmatter field, changing only that key's bytes.
use super::common::{Global, find_entity};
use super::set::{edit_entity, split_words};
use super::write_flags::{self, WriteFlags};
use folio_core::store::write::audit::AuditEvent;
use folio_core::store::write::edit::FieldEdit;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID KEY
    #[arg(num_args = 2..=3, required = true, value_name = "ARGS")]
    pub words: Vec<String>,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, words) = split_words(a.words, 2)?;
    let store = write_flags::open_resolved(g, path.as_deref(), a.write.read_only)?;
    let idx = find_entity(&store, &words[0])?;
    let key = &words[1];
    let event = AuditEvent::new("unset", &a.write.actor()?, format!("removed `{key}`")).detail("key", key.clone());
    edit_entity(&store, idx, FieldEdit::remove(key), event, &a.write)
}
