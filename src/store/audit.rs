//! Audit events: one per changeset, appended to the log in the dialect's own format.
//!
//! OKF: root `log.md` (`## YYYY-MM-DD`, newest first, `* **Verb**: …`); evolve:
//! `.evolve/audit.log` JSON lines; AIP-10: `_log.md` (`## [ISO] manual | verb subject`);
//! awareness: `memory/events.jsonl`; opendray, EloPhanto and vaults: `.folio/audit.jsonl`.
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::dialect::DialectKind;
use super::history::HistoryEvent;
use super::state::{State, evolve_home};

/// An entity an event is about.
#[derive(Debug, Clone, PartialEq)]
pub struct EventEntity {
    pub id: String,
    pub title: String,
    /// File path relative to the store root.
    pub path: String,
}

/// What one changeset did, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    /// Lower-case verb: `set`, `unset`, `move`, `migrate`, `undo`, `approve`, `fix`, …
    pub verb: String,
    /// Who: `human:<id>` (or `agent:<id>`).
    pub by: String,
    pub entities: Vec<EventEntity>,
    /// One line of prose: what changed.
    pub summary: String,
    /// Extra machine-readable fields for JSON logs (`key`, `value`, `from`, `to`, …).
    pub details: Map<String, Value>,
    /// AIP-10 `_log.md` heading `## [ISO] <event type> | <subject>`: the event type (the
    /// spec's closed set: ingest, query, lint, manual; `manual` when unset) and its subject.
    pub log_heading: Option<(String, String)>,
    /// Bullets under the AIP-10 heading, replacing the default ones (e.g. a lint pass's counts).
    pub bullets: Vec<String>,
}

impl AuditEvent {
    pub fn new(verb: &str, by: &str, summary: impl Into<String>) -> Self {
        AuditEvent {
            verb: verb.to_string(),
            by: by.to_string(),
            entities: Vec::new(),
            summary: summary.into(),
            details: Map::new(),
            log_heading: None,
            bullets: Vec::new(),
        }
    }

    /// Log under an AIP-10 heading other than `manual | <verb> <subject>`.
    pub fn heading(mut self, event_type: &str, subject: &str) -> Self {
        self.log_heading = Some((event_type.to_string(), subject.to_string()));
        self
    }

    pub fn bullet(mut self, line: impl Into<String>) -> Self {
        self.bullets.push(line.into());
        self
    }

    pub fn entity(mut self, id: &str, title: &str, path: &str) -> Self {
        self.entities.push(EventEntity { id: id.into(), title: title.into(), path: path.into() });
        self
    }

    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }
}

/// The default actor: `human:$USER`.
pub fn default_actor() -> String {
    let user = std::env::var("USER").or_else(|_| std::env::var("USERNAME")).unwrap_or_else(|_| "unknown".into());
    format!("human:{user}")
}

pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// `2026-08-19T18:23:34.123456Z`, as evolve writes it.
pub fn now_iso() -> String {
    iso(now())
}

fn iso(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(t.microsecond() * 1000).unwrap_or(t);
    t.format(&Rfc3339).unwrap_or_default()
}

/// Where the event log of a store of `kind` at `root` lives.
pub fn log_path(root: &Path, kind: DialectKind) -> PathBuf {
    match kind {
        DialectKind::Okf => root.join("log.md"),
        DialectKind::Aip10 => root.join("_log.md"),
        DialectKind::Awareness => root.join("memory/events.jsonl"),
        DialectKind::Evolve => match evolve_home(root) {
            Some(home) => home.join("audit.log"),
            None => State::for_store(root, kind).dir.join("audit.log"),
        },
        DialectKind::Opendray | DialectKind::Elophanto | DialectKind::Vault => {
            State::for_store(root, kind).dir.join("audit.jsonl")
        }
    }
}

/// The log's new content with `event` added at time `at`.
pub fn append(kind: DialectKind, old: Option<&str>, event: &AuditEvent, at: OffsetDateTime) -> String {
    let old = old.unwrap_or("");
    match kind {
        DialectKind::Okf => okf_append(old, event, at),
        DialectKind::Aip10 => aip10_append(old, event, at),
        DialectKind::Awareness => awareness_lines(old, event, at),
        DialectKind::Evolve if event.details.contains_key("hashes") => evolve_lines(old, event, at),
        _ => json_line(old, json_record(event, at)),
    }
}

/// evolve's review lines name one entity each: a bulk decision (`hashes`, one per entity)
/// becomes one line per entity with its own `hash`.
fn evolve_lines(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let hashes = event.details.get("hashes").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = old.to_string();
    for (i, e) in event.entities.iter().enumerate() {
        let mut one = event.clone();
        one.entities = vec![e.clone()];
        one.details.remove("hashes");
        if let Some(h) = hashes.get(i) {
            one.details.insert("hash".into(), h.clone());
        }
        out = json_line(&out, json_record(&one, at));
    }
    out
}

fn json_line(old: &str, record: Value) -> String {
    let sep = if old.is_empty() || old.ends_with('\n') { "" } else { "\n" };
    format!("{old}{sep}{record}\n")
}

/// `{"event": verb, "entity"|"entities": …, "by": …, "summary": …, details…, "ts": "…Z"}`.
fn json_record(event: &AuditEvent, at: OffsetDateTime) -> Value {
    let mut m = Map::new();
    m.insert("event".into(), json!(event.verb));
    match event.entities.as_slice() {
        [one] => {
            m.insert("entity".into(), json!(one.id));
        }
        many => {
            m.insert("entities".into(), json!(many.iter().map(|e| e.id.clone()).collect::<Vec<_>>()));
        }
    }
    m.insert("by".into(), json!(event.by));
    m.insert("summary".into(), json!(event.summary));
    for (k, v) in &event.details {
        m.entry(k.clone()).or_insert_with(|| v.clone());
    }
    m.insert("ts".into(), json!(iso(at)));
    Value::Object(m)
}

/// awareness: each memory entry the event moved is one line of the framework's own type and
/// fields (the `entries` detail: `memory.promoted`, `memory.pruned`); whatever else the event
/// is about gets one `folio.<verb>` line.
fn awareness_lines(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let entries = event.details.get("entries").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = old.to_string();
    let mut covered = Vec::new();
    for entry in &entries {
        let Value::Object(fields) = entry else { continue };
        let mut m = Map::new();
        m.insert("timestamp".into(), json!(awareness_ts(at)));
        for (k, v) in fields.iter().filter(|(k, _)| k.as_str() != "entity") {
            m.insert(k.clone(), v.clone());
        }
        m.insert("by".into(), json!(event.by));
        covered.extend(fields.get("entity").and_then(Value::as_str).map(str::to_string));
        out = json_line(&out, Value::Object(m));
    }
    let mut rest = event.clone();
    rest.entities.retain(|e| !covered.contains(&e.id));
    rest.details.remove("entries");
    if entries.is_empty() || !rest.entities.is_empty() {
        out = json_line(&out, awareness_record(&rest, at));
    }
    out
}

fn awareness_ts(at: OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02} {:02}:{:02} +00:00", at.year(), at.month() as u8, at.day(), at.hour(), at.minute())
}

/// awareness's own line shape: local-style minute timestamp, dotted `type`.
fn awareness_record(event: &AuditEvent, at: OffsetDateTime) -> Value {
    let ts = awareness_ts(at);
    let mut m = Map::new();
    m.insert("timestamp".into(), json!(ts));
    // A dotted verb is already one of the framework's own event types (`memory.promoted`).
    let kind = if event.verb.contains('.') { event.verb.clone() } else { format!("folio.{}", event.verb) };
    m.insert("type".into(), json!(kind));
    m.insert("text".into(), json!(event.summary));
    m.insert("by".into(), json!(event.by));
    if !event.entities.is_empty() {
        m.insert("entities".into(), json!(event.entities.iter().map(|e| e.id.clone()).collect::<Vec<_>>()));
    }
    Value::Object(m)
}

fn capitalised(verb: &str) -> String {
    let mut c = verb.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn okf_line(event: &AuditEvent, bullet: char) -> String {
    let links: Vec<String> = event
        .entities
        .iter()
        .map(|e| {
            format!("[{}](/{})", super::catalog::one_line(&e.title).replace(['[', ']'], ""), e.path.replace(' ', "%20"))
        })
        .collect();
    let about = if links.is_empty() { String::new() } else { format!(" {}:", links.join(", ")) };
    format!(
        "{bullet} **{}**:{about} {} ({})",
        capitalised(&event.verb),
        super::catalog::one_line(&event.summary),
        event.by
    )
}

/// Newest first: the entry joins today's `## YYYY-MM-DD` section at its top, or a new section
/// goes above the first dated one. Frontmatter and the `# Title` stay where they are.
fn okf_append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let nl = super::edit::newline_of(old);
    let date = format!("{:04}-{:02}-{:02}", at.year(), at.month() as u8, at.day());
    // Follow the log's own habits: its bullet character, a blank line under each date.
    let bullet = old.lines().map(str::trim_start).find(|l| l.starts_with("- **") || l.starts_with("* **"));
    let bullet = bullet.and_then(|l| l.chars().next()).unwrap_or('*');
    let spaced = old
        .split_inclusive('\n')
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0].starts_with("## ") && w[1].trim().is_empty());
    let gap = if spaced { nl } else { "" };
    let entry = okf_line(event, bullet);
    if old.trim().is_empty() {
        return format!("# Directory Update Log{nl}{nl}## {date}{nl}{entry}{nl}");
    }
    let mut pos = 0;
    for line in old.split_inclusive('\n') {
        let heading = line.trim_end();
        if let Some(d) = heading.strip_prefix("## ") {
            if d.trim() == date {
                let after = pos + line.len();
                // Skip a blank line directly under the heading, as hand-written logs have.
                let rest = &old[after..];
                let skip = if rest.starts_with(nl) { nl.len() } else { 0 };
                let at = after + skip;
                return format!("{}{entry}{nl}{}", &old[..at], &old[at..]);
            }
            return format!("{}## {date}{nl}{gap}{entry}{nl}{nl}{}", &old[..pos], &old[pos..]);
        }
        pos += line.len();
    }
    let sep = if old.ends_with("\n\n") || old.ends_with("\r\n\r\n") {
        ""
    } else if old.ends_with('\n') {
        nl
    } else {
        "\n\n"
    };
    format!("{old}{sep}## {date}{nl}{gap}{entry}{nl}")
}

/// Appended at the end (AIP-10 logs are chronological): `## [ISO] manual | verb subject`.
fn aip10_append(old: &str, event: &AuditEvent, at: OffsetDateTime) -> String {
    let ts = at.replace_nanosecond(0).unwrap_or(at).format(&Rfc3339).unwrap_or_default();
    let subject = event.entities.first().map(|e| e.id.clone()).unwrap_or_else(|| "store".into());
    let mut out = old.to_string();
    if !out.is_empty() {
        out.push_str(if out.ends_with("\n\n") {
            ""
        } else if out.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        });
    }
    match &event.log_heading {
        Some((kind, subject)) => out += &format!("## [{ts}] {kind} | {subject}\n\n"),
        None => out += &format!("## [{ts}] manual | {} {subject}\n\n", event.verb),
    }
    if event.bullets.is_empty() {
        for e in &event.entities {
            out += &format!("- {} [[{}]].\n", capitalised(&event.verb), e.id);
        }
        out += &format!("- {} (by {}).\n", super::catalog::one_line(&event.summary), event.by);
    } else {
        for b in &event.bullets {
            out += &format!("- {}\n", super::catalog::one_line(b));
        }
    }
    out
}

/// folio's own events from `.folio/audit.jsonl` (the log of dialects that have none).
pub fn folio_history(root: &Path, kind: DialectKind) -> Vec<HistoryEvent> {
    if !matches!(kind, DialectKind::Opendray | DialectKind::Elophanto | DialectKind::Vault) {
        return Vec::new();
    }
    let path = log_path(root, kind);
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    let rel = path.strip_prefix(root).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: Value = serde_json::from_str(l).ok()?;
            let entities = match (v.get("entity"), v.get("entities")) {
                (Some(Value::String(e)), _) => vec![e.clone()],
                (_, Some(Value::Array(a))) => a.iter().filter_map(|x| x.as_str().map(String::from)).collect(),
                _ => Vec::new(),
            };
            Some(HistoryEvent {
                ts: v.get("ts").and_then(|t| t.as_str()).map(String::from),
                kind: v.get("event").and_then(|t| t.as_str()).unwrap_or("event").to_string(),
                entities,
                path: rel.clone(),
                line: i as u32 + 1,
                raw: v,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn ev() -> AuditEvent {
        AuditEvent::new("set", "human:ann", "status = stable").entity("tables/users", "Users", "tables/users.md")
    }

    #[test]
    fn okf_newest_first_under_todays_heading() {
        let at = datetime!(2026-05-22 10:00 UTC);
        let fresh = append(DialectKind::Okf, None, &ev(), at);
        assert_eq!(
            fresh,
            "# Directory Update Log\n\n## 2026-05-22\n* **Set**: [Users](/tables/users.md): status = stable (human:ann)\n"
        );
        let old = "---\ntype: Log\n---\n# Log\n\n## 2026-05-22\n\n* **Update**: x\n\n## 2026-05-15\n* **Init**: y\n";
        let out = append(DialectKind::Okf, Some(old), &ev(), at);
        assert!(out.starts_with("---\ntype: Log\n---\n# Log\n\n## 2026-05-22\n\n* **Set**: [Users]"), "{out}");
        assert!(out.ends_with("(human:ann)\n* **Update**: x\n\n## 2026-05-15\n* **Init**: y\n"), "{out}");
        let next_day = append(DialectKind::Okf, Some(old), &ev(), datetime!(2026-05-23 1:00 UTC));
        assert!(next_day.starts_with("---\ntype: Log\n---\n# Log\n\n## 2026-05-23\n\n* **Set**"), "{next_day}");
        assert!(next_day.contains("(human:ann)\n\n## 2026-05-22\n\n* **Update**"), "{next_day}");
    }

    #[test]
    fn okf_follows_the_logs_bullets() {
        let old = "# Log\n\n## 2026-01-01\n\n- **Verified** x\n";
        let out = append(DialectKind::Okf, Some(old), &ev(), datetime!(2026-05-23 1:00 UTC));
        assert_eq!(
            out,
            "# Log\n\n## 2026-05-23\n\n- **Set**: [Users](/tables/users.md): status = stable (human:ann)\n\n## 2026-01-01\n\n- **Verified** x\n"
        );
    }

    #[test]
    fn json_and_markdown_logs() {
        let at = datetime!(2026-08-19 18:23:34.123456789 UTC);
        let line = append(DialectKind::Evolve, Some("{\"event\":\"recall\"}"), &ev().detail("key", "status"), at);
        let last: Value = serde_json::from_str(line.lines().last().unwrap()).unwrap();
        assert_eq!(line.lines().count(), 2);
        assert_eq!(last["event"], "set");
        assert_eq!(last["entity"], "tables/users");
        assert_eq!(last["key"], "status");
        assert_eq!(last["ts"], "2026-08-19T18:23:34.123456Z");
        let bulk = ev()
            .entity("tables/orders", "Orders", "tables/orders.md")
            .detail("hashes", json!(["sha256:a", "sha256:b"]));
        let lines = append(DialectKind::Evolve, None, &bulk, at);
        let lines: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[1]["entity"].as_str(), lines[1]["hash"].as_str()), (Some("tables/orders"), Some("sha256:b")));
        assert!(lines[0].get("hashes").is_none());
        let aware = append(DialectKind::Awareness, None, &ev(), at);
        let v: Value = serde_json::from_str(aware.trim()).unwrap();
        assert_eq!(v["timestamp"], "2026-08-19 18:23 +00:00");
        assert_eq!(v["type"], "folio.set");
        let aip = append(DialectKind::Aip10, Some("# Log\n"), &ev(), at);
        assert_eq!(
            aip,
            "# Log\n\n## [2026-08-19T18:23:34Z] manual | set tables/users\n\n- Set [[tables/users]].\n- status = stable (by human:ann).\n"
        );
    }
}
