//! `folio mv [PATH] ID NEW_ID`: move or rename an entity, repointing every link and typed edge
//! that names it, in one changeset.
use super::common::{Global, find_entity};
use super::escape;
use super::set::split_words;
use super::write_flags::{self, WriteFlags};
use folio_core::store::write::audit::AuditEvent;
use folio_core::store::write::changeset::Changeset;
use folio_core::store::write::repoint;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID NEW_ID — NEW_ID is the new path relative to the store root, `.md` optional.
    #[arg(num_args = 2..=3, required = true, value_name = "ARGS")]
    pub words: Vec<String>,
    #[command(flatten)]
    pub write: WriteFlags,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, words) = split_words(a.words, 2)?;
    let store = write_flags::open_resolved(g, path.as_deref(), a.write.read_only)?;
    let idx = find_entity(&store, &words[0])?;
    let e = store.entity(idx);
    let asked = std::path::Path::new(&words[1]);
    if asked.is_absolute() {
        anyhow::bail!(
            "{}: an absolute path; NEW_ID is where the entity goes inside the store, relative to its root — nothing was moved",
            escape::line(&words[1])
        );
    }
    if asked.components().any(|c| c == std::path::Component::ParentDir) {
        anyhow::bail!(
            "{}: `..` leads out of the store's folders; NEW_ID is a path relative to the store root — nothing was moved",
            escape::line(&words[1])
        );
    }
    let new_id = words[1].trim_start_matches("./");
    let new_path = if new_id.ends_with(".md") { new_id.to_string() } else { format!("{new_id}.md") };
    if !e.path.ends_with(".md") || super::set::shares_file(&store, idx) {
        anyhow::bail!("{}: `{}` is not a file of its own; it cannot be moved", e.path, e.id);
    }
    if new_path == e.path {
        println!("{}: already there; nothing to change", e.path);
        return Ok(0);
    }
    if store.abs_path(&new_path).exists() {
        anyhow::bail!("{new_path}: already exists; nothing was moved");
    }
    let plan = repoint::plan_move(&store, idx, &new_path).map_err(anyhow::Error::msg)?;
    for s in &plan.skipped {
        eprintln!("folio: {}", escape::line(s));
    }
    let summary = format!("moved `{}` to `{new_path}` ({} links repointed)", e.path, plan.links_rewritten);
    let event = AuditEvent::new("move", &a.write.actor()?, summary)
        .entity(new_path.trim_end_matches(".md"), &e.title, &new_path)
        .detail("from", e.path.clone())
        .detail("to", new_path.clone());
    let from = e.path.clone();
    let cs = plan.into_changeset(Changeset::new(event), &from, &new_path);
    write_flags::apply(&store, cs, &a.write)
}
