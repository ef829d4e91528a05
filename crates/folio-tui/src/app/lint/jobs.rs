//! The lint pane's background work: lint passes, finding context, fix diffs and writes, ignores.
//! Every message names the file it is about.
use folio_core::store::Store;
use folio_core::store::keep::cache::{Cache, lint_memo, profiles};
use folio_core::store::lint::{self, Finding, LintConfig, Linted, Report, fix};
use folio_core::store::write::changeset::WriteOptions;

use crate::app::event::Written;
use crate::app::model::FindingContext;

/// Lines shown above and below a finding's line.
const CONTEXT: u32 = 3;
/// Larger files are read only this far for context and diffs.
const READ_LIMIT: u64 = 4 * 1024 * 1024;

/// Lint the whole store, the content rules' profiles from the persistent cache where the files
/// are unchanged (a second open of a large store reads no body for them), and an unchanged
/// store's pairs and model findings from the lint memo, as `folio lint` takes them.
pub fn lint(store: &Store, cache: Option<&Cache>) -> Result<Linted, String> {
    let config = LintConfig::load(&store.root, store.kind()).map_err(|e| e.to_string())?;
    let memo = lint_memo::Memo::new(cache, store);
    let linted = Linted::full_remembering(store, &config, &|| profiles::open(cache, store).0, &memo);
    memo.save();
    Ok(linted)
}

/// Build ahead what the first relint of `linted`, a full pass over `store`, would build (the
/// content rules' state), its profiles from the cache as `relint` takes them. On one core: it
/// runs beside the work the person waits for after a first lint (the inbox's first build).
pub fn prepare_relint(store: &Store, linted: &Linted, cache: Option<&Cache>) {
    let prepare = || {
        linted.prepare_relint(store, &|| profiles::open(cache, store).0);
    };
    match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(pool) => pool.install(prepare),
        Err(_) => prepare(),
    }
}

/// Re-lint only what the changed files can affect (the config is read again: an ignore
/// written meanwhile is applied); the content rules read only the changed bodies when the
/// profiles are cached.
pub fn relint(
    base: &Store,
    linted: &Linted,
    store: &Store,
    changed: &[String],
    cache: Option<&Cache>,
) -> Result<Linted, String> {
    let config = LintConfig::load(&store.root, store.kind()).map_err(|e| e.to_string())?;
    Ok(linted.relint_with(base, store, changed, &config, &|| profiles::open(cache, store).0))
}

/// Ignore `rule` on the entity with id `entity` for `reason`.
pub fn ignore(
    store: &Store,
    rule: &str,
    entity: &str,
    other: Option<&str>,
    reason: &str,
    by: &str,
) -> Result<String, String> {
    let find = |id: &str| {
        store
            .find(id)
            .filter(|&i| store.entity(i).id == id)
            .ok_or_else(|| format!("{id}: no longer in the store; nothing was written"))
    };
    let idx = find(entity)?;
    let opts = WriteOptions::default();
    if let Some(other) = other {
        let applied = lint::ignore::dismiss(store, idx, find(other)?, reason, by, &opts).map_err(|e| e.to_string())?;
        return Ok(format!("dismissed {rule} between {entity} and {other} · {}", applied.summary()));
    }
    let applied = lint::ignore::add(store, rule, idx, reason, by, &opts).map_err(|e| e.to_string())?;
    Ok(format!("ignoring {rule} on {entity} · {}", applied.summary()))
}

/// Stop ignoring `rule` on the entity with id `entity`.
pub fn unignore(store: &Store, rule: &str, entity: &str, by: &str) -> Result<String, String> {
    let applied = lint::ignore::remove(store, rule, entity, by, &WriteOptions::default()).map_err(|e| e.to_string())?;
    Ok(format!("no longer ignoring {rule} on {entity} · {}", applied.summary()))
}

pub fn context(store: &Store, path: &str, line: u32) -> Result<FindingContext, String> {
    let (bytes, _) = store.storage().read_capped(path, READ_LIMIT).map_err(|e| format!("{path}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let first = line.saturating_sub(CONTEXT).max(1);
    let last = line.max(1) + CONTEXT;
    let lines = text.lines().skip(first as usize - 1).take((last - first + 1) as usize).map(str::to_string).collect();
    Ok(FindingContext { path: path.to_string(), line, first, lines })
}

/// The unified diff the findings' fixes would make, file by file.
pub fn diff(store: &Store, findings: &[Finding]) -> Result<Vec<String>, String> {
    let fixes: Vec<&fix::Fix> = findings.iter().filter_map(|f| f.fix.as_deref()).collect();
    if fixes.is_empty() {
        return Err("no safe fix for this finding".into());
    }
    let mut out = Vec::new();
    for f in fix::merge_per_file(&fixes) {
        let current = fix::OnDisk::of(store, &f.path).map_err(|e| format!("{}: {e}", f.path))?;
        let new = f.apply(current.as_ref()).map_err(|e| e.to_string())?;
        let old =
            String::from_utf8_lossy(current.as_ref().map(|d| d.bytes.as_slice()).unwrap_or_default()).into_owned();
        let new = String::from_utf8_lossy(&new).into_owned();
        out.extend(fix::unified_diff(&f.path, &old, &new).lines().map(str::to_string));
    }
    // Then what else the fix writes: the log and its bytes, catalogs, folio's git rules.
    let report = Report { findings: findings.to_vec(), ..Report::default() };
    let by = folio_core::store::write::audit::default_actor();
    if let Ok((Some(cs), _)) = lint::apply::fixes_changeset(store, &report, &by) {
        out.extend(folio_core::store::write::preview::also_written(store, &cs));
    }
    Ok(out)
}

/// Write the fixes through the changeset path; returns what was done, the files to reload and
/// the digests of everything written (folio's own writes, so the watcher's echo stays quiet).
pub fn apply(store: &Store, findings: Vec<Finding>) -> Result<Written, String> {
    let report = Report { findings, ..Report::default() };
    let by = folio_core::store::write::audit::default_actor();
    let outcome = lint::apply::apply_fixes(store, &report, &by, &WriteOptions::default()).map_err(|e| e.to_string())?;
    let mut text = format!("fixed {} in {}", plural(outcome.fixed, "finding"), plural(outcome.files.len(), "file"));
    if !outcome.files.is_empty() {
        let shown: Vec<&str> = outcome.files.iter().take(4).map(String::as_str).collect();
        let more = outcome.files.len().saturating_sub(4);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        text.push_str(&format!(" · wrote {}{more}", shown.join(", ")));
    }
    if !outcome.logs.is_empty() {
        text.push_str(&format!(" · logged to {}", outcome.logs.join(", ")));
    }
    let written: Vec<String> = outcome.files.iter().chain(&outcome.logs).cloned().collect();
    let own = crate::app::platform::own_writes::fingerprints(&store.root, &written);
    Ok((text, outcome.files.iter().map(|f| store.abs_path(f)).collect(), own))
}

/// `1 finding`, `2 findings`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_and_diff_name_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
        w("a.md", "---\ntitle: A\n---\none\ntwo [[b]]\nthree\nfour\nfive\nsix\n");
        w("b.md", "# B\n\nback to [[a]]\n");
        let store = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        let c = context(&store, "a.md", 5).unwrap();
        assert_eq!((c.first, c.lines.len(), c.lines[0].as_str()), (2, 7, "title: A"));
        assert_eq!(c.lines[3], "two [[b]]", "the finding's line sits 3 below the first");
        assert!(context(&store, "gone.md", 1).unwrap_err().starts_with("gone.md: "));
        assert_eq!(diff(&store, &[]).unwrap_err(), "no safe fix for this finding");
    }
}
