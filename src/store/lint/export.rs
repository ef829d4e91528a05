//! Machine-readable lint output: folio's JSON (stable keys, schema in `docs/lint-schema.json`)
//! and SARIF 2.1.0 for code hosts.
use serde_json::{Value, json};

use super::{Finding, Report, rules};
use crate::store::Store;
use crate::store::model::entity::Severity;

/// Where folio is published (the crate's page; the lead may point it at the repository).
const INFORMATION_URI: &str = "https://crates.io/crates/folio";

/// `{"store", "dialect", "findings": [...], "summary": {...}}`.
pub fn json(store: &Store, report: &Report) -> Value {
    let finding = |f: &Finding| {
        json!({
            "rule": f.rule,
            "severity": f.severity.name(),
            "entity": f.entity.map(|i| store.entity(i).id.clone()),
            "path": f.path,
            "line": position(f.line),
            "column": position(f.col),
            "message": f.message,
            "fix": f.fix.as_ref().map(|x| x.description.clone()),
        })
    };
    let findings: Vec<Value> = report.findings.iter().map(finding).collect();
    let suppressed: Vec<Value> = report
        .suppressed
        .iter()
        .map(|s| {
            let mut v = finding(&s.finding);
            v["reason"] = Value::from(s.reason.clone());
            v
        })
        .collect();
    let s = report.summary();
    json!({
        "store": store.root.display().to_string(),
        "dialect": store.kind().name(),
        "findings": findings,
        "suppressed": suppressed,
        "summary": {
            "total": report.findings.len(),
            "errors": s.errors,
            "warnings": s.warnings,
            "infos": s.infos,
            "files": s.files,
            "fixable": s.fixable,
            "ignored": report.suppressed.len(),
            "by_rule": s.by_rule,
        },
    })
}

/// 0 means "the whole file": no position.
fn position(n: u32) -> Value {
    if n == 0 { Value::Null } else { Value::from(n) }
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
