//! `folio restore [PATH] ID REV`: write a past version of an entity back as an ordinary folio
//! change — hash-checked, journaled, logged in the store's log, undone by `folio undo`. Git's
//! index and history are left alone. REV is a rev from `folio history` or `last` (the newest
//! version with content: for a deleted entity, what its file held before it was deleted).
use super::common::Global;
use super::write_flags::{self, WriteFlags};
use folio_core::store::history::restore;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID REV — the store (optional), the entity (a deleted one by its path) and the version.
    #[arg(required = true, num_args = 2..=3, value_name = "PATH] [ID] [REV")]
    pub words: Vec<String>,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, words) = super::set::split_words(a.words, 2)?;
    let store = write_flags::open_resolved(g, path.as_deref(), a.write.read_only)?;
    let h = super::history::load(&store, &words[0])?;
    let rev = match words[1].as_str() {
        "last" => h.versions.iter().find(|v| v.has_content()).map(|v| v.rev.clone()).unwrap_or_default(),
        r => r.to_string(),
    };
    match restore::plan(&store, &h, &rev, &a.write.actor()?).map_err(anyhow::Error::msg)? {
        Some(cs) => write_flags::apply(&store, cs, &a.write),
        None => {
            println!("{}: already holds version {rev}; nothing to change", super::escape::line(&h.path));
            Ok(0)
        }
    }
}
