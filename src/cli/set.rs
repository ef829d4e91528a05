//! `folio set [PATH] ID KEY VALUE`: set one frontmatter field, changing only that key's bytes.
use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;

use super::common::{Global, find_entity};
use super::write_flags::{self, WriteFlags};
use folio_core::store::dialect::Grammar;
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::write::audit::AuditEvent;
use folio_core::store::write::changeset::Changeset;
use folio_core::store::write::edit::{self, FieldEdit};
use folio_core::store::{Store, model::digest, read::frontmatter};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID KEY VALUE — VALUE is read as YAML (`0.9` a number, `[a, b]` a list).
    #[arg(num_args = 3..=4, required = true, value_name = "ARGS")]
    pub words: Vec<String>,
    /// Take VALUE as a string even when it reads as a number, boolean or list.
    #[arg(long)]
    pub string: bool,
    #[command(flatten)]
    pub write: WriteFlags,
}

/// `[PATH] A B…`: the first word is PATH when there is one more than `wanted`.
pub fn split_words(mut words: Vec<String>, wanted: usize) -> anyhow::Result<(Option<PathBuf>, Vec<String>)> {
    match words.len() {
        n if n == wanted => Ok((None, words)),
        n if n == wanted + 1 => {
            let path = PathBuf::from(words.remove(0));
            Ok((Some(path), words))
        }
        n => anyhow::bail!("expected [PATH] and {wanted} arguments, got {n}"),
    }
}

/// How the store writes frontmatter.
pub fn grammar_of(store: &Store) -> Grammar {
    store.kind().format().grammar()
}

/// A value typed on the command line, read as YAML unless told it is a string.
pub fn parse_value(text: &str, as_string: bool) -> Value {
    if as_string {
        return Value::String(text.to_string());
    }
    match frontmatter::parse_yaml(&format!("v: {text}\n")).ok().and_then(|mut f| f.remove("v")) {
        Some(Value::Null) if !text.trim().is_empty() && text.trim() != "null" && text.trim() != "~" => {
            Value::String(text.to_string())
        }
        Some(v) => v,
        None => Value::String(text.to_string()),
    }
}

/// Whether other entities live in the same file (awareness entries, multi-entry files).
pub fn shares_file(store: &Store, idx: EntityIdx) -> bool {
    let path = &store.entity(idx).path;
    store.entities.iter().filter(|o| &o.path == path).count() > 1
}

/// Apply one field edit to one entity as a changeset (or preview it).
pub fn edit_entity(
    store: &Store,
    idx: EntityIdx,
    edit: FieldEdit,
    event: AuditEvent,
    flags: &WriteFlags,
) -> anyhow::Result<u8> {
    let e = store.entity(idx);
    let path = e.path.clone();
    if shares_file(store, idx) {
        anyhow::bail!(
            "{path}: `{}` shares its file with other entries; it has no frontmatter of its own to edit",
            e.id
        );
    }
    let bytes = store.storage().read(&path).with_context(|| path.clone())?;
    let text = String::from_utf8(bytes.clone())
        .map_err(|_| anyhow::anyhow!("{path}: not valid UTF-8; folio does not edit it"))?;
    let new = edit::apply(&text, grammar_of(store), &edit).with_context(|| path.clone())?;
    if new == text {
        println!("{path}: already so; nothing to change");
        return Ok(0);
    }
    let event = event.entity(&e.id, &e.title, &path);
    let cs = Changeset::new(event).replace(&path, digest::of(&bytes), new);
    write_flags::apply(store, cs, flags)
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, words) = split_words(a.words, 3)?;
    let store = write_flags::open_resolved(g, path.as_deref(), a.write.read_only)?;
    let idx = find_entity(&store, &words[0])?;
    let (key, raw) = (&words[1], &words[2]);
    let value =
        if grammar_of(&store) == Grammar::KeyValue { Value::String(raw.clone()) } else { parse_value(raw, a.string) };
    let event = AuditEvent::new(
        "set",
        &a.write.actor()?,
        format!("set `{key}` to `{}`", folio_core::store::write::catalog::one_line(raw)),
    )
    .detail("key", key.clone())
    .detail("value", value.clone());
    edit_entity(&store, idx, FieldEdit::Set { key: key.clone(), value }, event, &a.write)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_yaml() {
        assert_eq!(parse_value("0.9", false), json!(0.9));
        assert_eq!(parse_value("[a, b]", false), json!(["a", "b"]));
        assert_eq!(parse_value("stable", false), json!("stable"));
        assert_eq!(parse_value("0.9", true), json!("0.9"));
        assert_eq!(parse_value("a: b: c", false), json!("a: b: c"));
    }

    #[test]
    fn path_is_the_extra_first_word() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(split_words(w(&["id", "k", "v"]), 3).unwrap(), (None, w(&["id", "k", "v"])));
        assert_eq!(
            split_words(w(&["p", "id", "k", "v"]), 3).unwrap(),
            (Some(PathBuf::from("p")), w(&["id", "k", "v"]))
        );
        assert!(split_words(w(&["id"]), 3).is_err());
    }
}
