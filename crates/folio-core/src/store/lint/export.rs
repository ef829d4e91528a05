//! Machine-readable lint output: folio's JSON (stable keys, schema in `docs/lint-schema.json`)
//! and SARIF 2.1.0 for code hosts.
use serde::Serialize;
use serde_json::{Value, json};

use super::{Finding, Report, Suppressed, rules};
use crate::store::Store;
use crate::store::model::entity::Severity;

/// Where folio is published (the crate's page; the lead may point it at the repository).
const INFORMATION_URI: &str = "https://crates.io/crates/folio";

/// `{"store", "dialect", "findings": [...], "summary": {...}}`, serialized straight from the
/// report: a `serde_json::Value` per finding first would be a tree of allocations for each,
/// a large share of a cold `folio lint --format json` (docs/benchmarks.md, "Lint figures").
pub fn json<'a>(store: &'a Store, report: &'a Report) -> impl Serialize + 'a {
    let s = report.summary();
    JsonReport {
        store: store.root.display().to_string(),
        dialect: store.kind().name(),
        findings: Rows { store, findings: &report.findings, suppressed: &[] },
        suppressed: Rows { store, findings: &[], suppressed: &report.suppressed },
        summary: JsonSummary {
            total: report.findings.len(),
            errors: s.errors,
            warnings: s.warnings,
            infos: s.infos,
            files: s.files,
            fixable: s.fixable,
            ignored: report.suppressed.len(),
            by_rule: s.by_rule,
        },
    }
}

/// The JSON report's fields, in their order (the schema's key order).
#[derive(Serialize)]
struct JsonReport<'a> {
    store: String,
    dialect: &'static str,
    findings: Rows<'a>,
    suppressed: Rows<'a>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct JsonSummary {
    total: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    files: usize,
    fixable: usize,
    ignored: usize,
    by_rule: std::collections::BTreeMap<&'static str, usize>,
}

/// Findings, or ignored findings with their reasons, written one row at a time.
struct Rows<'a> {
    store: &'a Store,
    findings: &'a [Finding],
    suppressed: &'a [Suppressed],
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let found = self.findings.iter().map(|f| row(self.store, f, None));
        let ignored = self.suppressed.iter().map(|s| row(self.store, &s.finding, Some(&s.reason)));
        ser.collect_seq(found.chain(ignored))
    }
}

/// One finding; 0 as a line or column means "the whole file": no position (`null`).
#[derive(Serialize)]
struct Row<'a> {
    rule: &'static str,
    severity: &'static str,
    entity: Option<&'a str>,
    path: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
    fix: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

fn row<'a>(store: &'a Store, f: &'a Finding, reason: Option<&'a str>) -> Row<'a> {
    Row {
        rule: f.rule,
        severity: f.severity.name(),
        entity: f.entity.map(|i| store.entity(i).id.as_str()),
        path: f.path.as_deref(),
        line: (f.line != 0).then_some(f.line),
        column: (f.col != 0).then_some(f.col),
        message: &f.message,
        fix: f.fix.as_ref().map(|x| x.description.as_str()),
        reason,
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warn => "warning",
        Severity::Info => "note",
    }
}

/// A SARIF 2.1.0 log with one run: every rule in `tool.driver.rules`, one result per finding;
/// ignored findings are results too, with an external, accepted suppression and its reason.
pub fn sarif(store: &Store, report: &Report) -> Value {
    let driver_rules: Vec<Value> = rules::RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.explain},
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let suppressed = report.suppressed.iter().map(|s| (&s.finding, Some(s.reason.as_str())));
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| (f, None))
        .chain(suppressed)
        .map(|(f, reason)| {
            let mut result = json!({
                "ruleId": f.rule,
                "ruleIndex": rules::RULES.iter().position(|r| r.id == f.rule),
                "level": level(f.severity),
                "message": {"text": f.message},
            });
            if let Some(path) = &f.path {
                let mut physical = json!({"artifactLocation": {"uri": uri(path), "uriBaseId": "STOREROOT"}});
                if f.line > 0 {
                    physical["region"] = json!({"startLine": f.line, "startColumn": f.col.max(1)});
                }
                result["locations"] = json!([{"physicalLocation": physical}]);
            }
            if let Some(reason) = reason {
                result["suppressions"] = json!([{"kind": "external", "status": "accepted", "justification": reason}]);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "folio",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": driver_rules,
            }},
            "originalUriBaseIds": {"STOREROOT": {"uri": root_uri(store)}},
            "results": results,
        }],
    })
}

/// A relative path as a URI reference: each segment percent-encoded where it must be.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn root_uri(store: &Store) -> String {
    let root = std::fs::canonicalize(&store.root).unwrap_or_else(|_| store.root.clone());
    let mut s = format!("file://{}", uri(&root.to_string_lossy()));
    if !s.ends_with('/') {
        s.push('/');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_encode_spaces_and_unicode() {
        assert_eq!(uri("notes/My Note.md"), "notes/My%20Note.md");
        assert_eq!(uri("é.md"), "%C3%A9.md");
    }
}
