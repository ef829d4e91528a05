//! Ignoring one rule's findings on one entity, with a reason: `[[ignore]]` entries in the
//! store-local config (shared through git). Applying them splits a report into shown and
//! suppressed findings and reports entries whose entity is gone (`stale-ignore`); adding and
//! removing one rewrites only that entry of the config file, through the journaled write path
//! with an audit event like every other write.
use std::collections::HashMap;

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::config::{LintConfig, config_path, folio_dir};
use super::{Finding, Origin, Report, Suppressed, rules, sort};
use crate::store::Store;
use crate::store::model::digest;
use crate::store::model::entity::EntityIdx;
use crate::store::write::audit::{self, AuditEvent};
use crate::store::write::changeset::{Applied, Write, WriteError, WriteOptions, apply_writes};
use crate::store::write::journal::Role;

/// Split `findings` (config already applied) into shown and ignored, add a `stale-ignore`
/// finding for every entry whose entity no longer exists, and sort both lists.
pub fn partition(store: &Store, config: &LintConfig, findings: Vec<Finding>) -> Report {
    let mut report = Report { findings: Vec::with_capacity(findings.len()), suppressed: Vec::new() };
    let mut by_key: HashMap<(&str, &str), &str> = HashMap::new();
    // A dismissed pair is dropped where its findings are made, not here.
    for ig in config.ignores.iter().filter(|ig| ig.other.is_none()) {
        by_key.entry((ig.rule, ig.entity.as_str())).or_insert(ig.reason.as_str());
    }
    for f in findings.into_iter().filter(|f| f.origin != Origin::Ignore) {
        let reason = match f.entity {
            Some(i) if !by_key.is_empty() => by_key.get(&(f.rule, store.entity(i).id.as_str())).copied(),
            _ => None,
        };
        match reason {
            Some(reason) => report.suppressed.push(Suppressed { finding: f, reason: reason.to_string() }),
            None => report.findings.push(f),
        }
    }
    report.findings.extend(stale(store, config));
    sort(&mut report.findings);
    report.suppressed.sort_by(|a, b| order(a).cmp(&order(b)));
    report
}

/// `partition` of the concatenation of `runs`, each already in the report's order (a relint's
/// kept findings, shown and suppressed, then its fresh ones sorted): the runs are merged, each
/// fresh finding put in place by a binary search, so that a relint pays for what it
/// recomputed rather than for sorting the whole report again. Ties keep the runs' order, as
/// the stable sort of `partition` does.
pub fn partition_runs(store: &Store, config: &LintConfig, runs: Vec<Vec<Finding>>) -> Report {
    let mut by_key: HashMap<(&str, &str), &str> = HashMap::new();
    for ig in config.ignores.iter().filter(|ig| ig.other.is_none()) {
        by_key.entry((ig.rule, ig.entity.as_str())).or_insert(ig.reason.as_str());
    }
    let mut shown = Vec::new();
    let mut suppressed = Vec::new();
    for mut run in runs {
        run.retain(|f| f.origin != Origin::Ignore);
        // Without ignores the run is shown as it is: a relint's kept findings are most of the
        // report, and splitting them into a new vector would copy them all.
        let (s, q) = if by_key.is_empty() {
            (run, Vec::new())
        } else {
            let (mut s, mut q) = (Vec::with_capacity(run.len()), Vec::new());
            for f in run {
                let reason = f.entity.and_then(|i| by_key.get(&(f.rule, store.entity(i).id.as_str())).copied());
                match reason {
                    Some(reason) => q.push(Suppressed { finding: f, reason: reason.to_string() }),
                    None => s.push(f),
                }
            }
            (s, q)
        };
        shown = merge(shown, s, |a, b| key(a).cmp(&key(b)));
        suppressed = merge(suppressed, q, |a, b| order(a).cmp(&order(b)));
    }
    let mut stale = stale(store, config);
    sort(&mut stale);
    Report { findings: merge(shown, stale, |a, b| key(a).cmp(&key(b))), suppressed }
}

/// The report's order (`sort`).
fn key(f: &Finding) -> (bool, Option<&str>, u32, u32, &str, &str) {
    (f.path.is_some(), f.path.as_deref(), f.line, f.col, f.rule, f.message.as_str())
}

/// `a` and `b`, each in order, as one list in order; of equal elements those of `a` first.
/// Each element of `b` finds its place by a binary search in what is left of `a`.
fn merge<T>(a: Vec<T>, b: Vec<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    if b.is_empty() {
        return a;
    }
    if a.is_empty() {
        return b;
    }
    let mut cuts = Vec::with_capacity(b.len());
    let mut from = 0;
    for y in &b {
        from += a[from..].partition_point(|x| cmp(x, y).is_le());
        cuts.push(from);
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut taken) = (a.into_iter(), 0);
    for (y, cut) in b.into_iter().zip(cuts) {
        out.extend(a.by_ref().take(cut - taken));
        taken = cut;
        out.push(y);
    }
    out.extend(a);
    out
}

/// Ignored findings sort like shown ones.
fn order(s: &Suppressed) -> (bool, Option<&str>, u32, u32, &str, &str) {
    let f = &s.finding;
    (f.path.is_some(), f.path.as_deref(), f.line, f.col, f.rule, f.message.as_str())
}

/// A `stale-ignore` finding for every entry whose entity id is not in the store.
fn stale(store: &Store, config: &LintConfig) -> Vec<Finding> {
    if config.disabled.contains(rules::STALE_IGNORE) {
        return Vec::new();
    }
    let path = config_rel(store);
    config
        .ignores
        .iter()
        .filter_map(|ig| {
            let gone =
                [Some(&ig.entity), ig.other.as_ref()].into_iter().flatten().find(|id| store.by_id(id).is_none())?;
            Some((ig, gone))
        })
        .map(|(ig, gone)| {
            let what = match &ig.other {
                Some(other) => format!("dismisses {} between `{}` and `{other}`", ig.rule, ig.entity),
                None => format!("ignores {} on `{}`", ig.rule, ig.entity),
            };
            let mut f = Finding::on_file(
                &path,
                rules::STALE_IGNORE,
                ig.line,
                format!("{what}, but `{gone}` no longer exists (reason given: {})", ig.reason),
            );
            f.origin = Origin::Ignore;
            f.with_severity(config.severity.get(rules::STALE_IGNORE).copied())
        })
        .collect()
}

/// The config file relative to the store root (`../folio/config.toml` beside an evolve bundle).
pub fn config_rel(store: &Store) -> String {
    let dir = folio_dir(&store.root, store.kind());
    match dir.strip_prefix(&store.root) {
        Ok(rel) => format!("{}/config.toml", rel.to_string_lossy().replace('\\', "/")),
        Err(_) => "../folio/config.toml".to_string(),
    }
}

/// Ignore the findings of `rule` on `entity` for `reason`: appends one `[[ignore]]` entry.
pub fn add(
    store: &Store,
    rule: &str,
    entity: EntityIdx,
    reason: &str,
    by: &str,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    add_entry(store, rule, entity, None, reason, by, opts)
}

/// Dismiss the possible contradiction between `a` and `b` for `reason`: an `[[ignore]]` entry
/// naming both, so that pair is never reported again (the rule's other pairs still are).
pub fn dismiss(
    store: &Store,
    a: EntityIdx,
    b: EntityIdx,
    reason: &str,
    by: &str,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    if a == b {
        return Err(WriteError::Invalid("an entity does not contradict itself; nothing was written".into()));
    }
    add_entry(store, super::possible_contradiction::RULE, a, Some(b), reason, by, opts)
}

fn add_entry(
    store: &Store,
    rule: &str,
    entity: EntityIdx,
    other: Option<EntityIdx>,
    reason: &str,
    by: &str,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    let rule = rules::lookup(rule)
        .map(|r| r.id)
        .ok_or_else(|| WriteError::Invalid(format!("unknown lint rule `{rule}` (known: {})", rules::id_list())))?;
    let reason: String = reason.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(WriteError::Invalid("an ignore needs a reason; nothing was written".into()));
    }
    let e = store.entity(entity);
    let other = other.map(|o| store.entity(o));
    let (old, config) = read(store)?;
    let pair =
        other.map(|o| if e.id <= o.id { (e.id.as_str(), o.id.as_str()) } else { (o.id.as_str(), e.id.as_str()) });
    if let Some(pair) = pair {
        if config.dismissed_pairs().contains(&pair) {
            return Err(WriteError::Invalid(format!(
                "{rule} between `{}` and `{}` is already dismissed; nothing was written",
                pair.0, pair.1
            )));
        }
    } else if config.ignores.iter().any(|ig| ig.rule == rule && ig.entity == e.id && ig.other.is_none()) {
        return Err(WriteError::Invalid(format!("{rule} on `{}` is already ignored; nothing was written", e.id)));
    }
    let mut doc = parse(store, old.as_deref())?;
    let mut entry = Table::new();
    entry["rule"] = value(rule);
    entry["entity"] = value(e.id.as_str());
    if let Some(o) = other {
        entry["other"] = value(o.id.as_str());
    }
    entry["reason"] = value(reason);
    entry["by"] = value(by);
    entry["at"] = value(audit::now_iso());
    if !doc.contains_key("ignore") {
        doc["ignore"] = Item::ArrayOfTables(ArrayOfTables::new());
    }
    let Some(list) = doc["ignore"].as_array_of_tables_mut() else {
        return Err(not_a_list(store));
    };
    list.push(entry);
    let summary = match other {
        Some(o) => format!("dismiss {rule} between {} and {}: {reason}", e.id, o.id),
        None => format!("ignore {rule} on {}: {reason}", e.id),
    };
    let mut event = AuditEvent::new("ignore", by, summary).entity(&e.id, &e.title, &e.path);
    if let Some(o) = other {
        event = event.entity(&o.id, &o.title, &o.path);
    }
    let event = event.detail("rule", rule).detail("reason", reason);
    write(store, old, doc.to_string(), event, opts)
}

/// Stop ignoring `rule` on the entity with id `entity` (which may be gone: a stale entry).
pub fn remove(store: &Store, rule: &str, entity: &str, by: &str, opts: &WriteOptions) -> Result<Applied, WriteError> {
    let (old, _) = read(store)?;
    let mut doc = parse(store, old.as_deref())?;
    let list = doc.get_mut("ignore").and_then(Item::as_array_of_tables_mut);
    let Some(list) = list else {
        return Err(WriteError::Invalid(format!("{rule} on `{entity}` is not ignored; nothing was written")));
    };
    let before = list.len();
    list.retain(|t| {
        !(t.get("rule").and_then(Item::as_str) == Some(rule) && t.get("entity").and_then(Item::as_str) == Some(entity))
    });
    if list.len() == before {
        return Err(WriteError::Invalid(format!("{rule} on `{entity}` is not ignored; nothing was written")));
    }
    if list.is_empty() {
        doc.remove("ignore");
    }
    let mut event =
        AuditEvent::new("unignore", by, format!("stop ignoring {rule} on {entity}")).detail("rule", rule.to_string());
    if let Some(i) = store.by_id(entity) {
        let e = store.entity(i);
        event = event.entity(&e.id, &e.title, &e.path);
    }
    write(store, old, doc.to_string(), event, opts)
}

/// The config file's bytes (None: no file yet) and its parsed form.
fn read(store: &Store) -> Result<(Option<String>, LintConfig), WriteError> {
    let path = config_path(&store.root, store.kind());
    let shown = path.display().to_string();
    match std::fs::read(&path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes)
                .map_err(|_| WriteError::Invalid(format!("{shown}: not UTF-8; nothing was written")))?;
            let config = LintConfig::parse(&text)
                .map_err(|m| WriteError::Invalid(format!("{shown}: {m}; nothing was written")))?;
            Ok((Some(text), config))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((None, LintConfig::default())),
        Err(err) => Err(WriteError::Io { path: shown, err }),
    }
}

fn parse(store: &Store, text: Option<&str>) -> Result<DocumentMut, WriteError> {
    text.unwrap_or("").parse::<DocumentMut>().map_err(|e| {
        let shown = config_path(&store.root, store.kind()).display().to_string();
        WriteError::Invalid(format!("{shown}: {}; nothing was written", e.message()))
    })
}

fn not_a_list(store: &Store) -> WriteError {
    let shown = config_path(&store.root, store.kind()).display().to_string();
    WriteError::Invalid(format!("{shown}: `ignore` is not a list of [[ignore]] tables; nothing was written"))
}

/// Swap the new config text in (compare-and-swap against what was read), journaled and logged.
fn write(
    store: &Store,
    old: Option<String>,
    new: String,
    event: AuditEvent,
    opts: &WriteOptions,
) -> Result<Applied, WriteError> {
    let dir = folio_dir(&store.root, store.kind());
    std::fs::create_dir_all(&dir).map_err(|err| WriteError::Io { path: dir.display().to_string(), err })?;
    let w = Write {
        path: config_rel(store),
        expected: old.as_deref().map(|t| digest::of(t.as_bytes())),
        after: Some(new.into_bytes()),
        role: Role::Edit,
    };
    apply_writes(store, vec![w], event, None, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A\n\nSee [gone](gone.md).\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "# B\n\n[[a]]\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        (dir, store)
    }

    #[test]
    fn add_appends_one_entry_and_keeps_the_rest_byte_exact() {
        let (dir, store) = store();
        let cfg = dir.path().join(".folio/config.toml");
        std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
        let original = "# our lint settings\n[lint]\ndisable = [\"duplicate-title\"]  # noisy\n";
        std::fs::write(&cfg, original).unwrap();
        let a = store.find("a").unwrap();
        let applied =
            add(&store, "broken-link", a, "the target\nis external", "human:ann", &WriteOptions::default()).unwrap();
        assert_eq!(applied.files, [".folio/config.toml"]);
        let text = std::fs::read_to_string(&cfg).unwrap();
        assert!(text.starts_with(original), "{text}");
        let config = LintConfig::parse(&text).unwrap();
        assert_eq!(config.ignores.len(), 1);
        assert_eq!(config.ignores[0].reason, "the target is external");
        assert_eq!(config.ignores[0].by.as_deref(), Some("human:ann"));
        let log = std::fs::read_to_string(dir.path().join(".folio/audit.jsonl")).unwrap();
        assert!(log.contains("\"ignore\"") && log.contains("broken-link"), "{log}");

        let report = super::super::lint(&store, &config);
        assert!(report.findings.iter().all(|f| f.rule != "broken-link"));
        assert_eq!(report.suppressed.len(), 1);
        assert_eq!(report.suppressed[0].reason, "the target is external");

        let again = add(&store, "broken-link", a, "twice", "human:ann", &WriteOptions::default()).unwrap_err();
        assert!(again.to_string().contains("already ignored"), "{again}");
        assert!(add(&store, "orphan", a, "  ", "human:ann", &WriteOptions::default()).is_err());

        remove(&store, "broken-link", "a", "human:ann", &WriteOptions::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&cfg).unwrap(), original, "removing restores the file");
        assert!(remove(&store, "broken-link", "a", "human:ann", &WriteOptions::default()).is_err());
    }

    #[test]
    fn creates_the_config_and_reports_stale_entries() {
        let (dir, store) = store();
        let b = store.find("b").unwrap();
        add(&store, "orphan", b, "entry point", "human:ann", &WriteOptions::default()).unwrap();
        let config = LintConfig::load(dir.path(), crate::store::dialect::vault::KIND).unwrap();
        assert_eq!(super::super::lint(&store, &config).suppressed.len(), 1);
        std::fs::remove_file(dir.path().join("b.md")).unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let report = super::super::lint(&store, &config);
        let stale: Vec<&Finding> = report.findings.iter().filter(|f| f.rule == rules::STALE_IGNORE).collect();
        assert_eq!(stale.len(), 1);
        assert_eq!(stale[0].path.as_deref(), Some(".folio/config.toml"));
        assert_eq!(stale[0].line, 1);
        assert!(stale[0].message.contains("`b`") && stale[0].message.contains("entry point"));
        // A stale entry can still be removed by id.
        remove(&store, "orphan", "b", "human:ann", &WriteOptions::default()).unwrap();
    }

    #[test]
    fn evolve_config_lives_beside_the_bundle() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".evolve/entities");
        std::fs::create_dir_all(&root).unwrap();
        let store = Store::load(&root, crate::store::dialect::evolve::KIND, "test".into());
        assert_eq!(config_rel(&store), "../folio/config.toml");
    }
}
