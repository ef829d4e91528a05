//! `opendray-export.json`: the file that marks a folder as an opendray export and says which
//! instance wrote it and when.
use std::path::Path;

use serde_json::Value;

use super::format::MARKER as OPENDRAY_MARKER;
use crate::store::dialect::StoreWarning;
use crate::store::read::fsio;

/// The only `format` value this reader knows.
pub const EXPORT_FORMAT: &str = "opendray-export/v1";

/// A marker larger than this is not a marker (it holds three short keys).
const MAX_MARKER_BYTES: u64 = 64 * 1024;

/// What the marker says, and what is wrong with it.
#[derive(Debug, Default, Clone)]
pub struct Marker {
    /// The marker's JSON object (Null when absent or unreadable), for `stats --json`.
    pub fields: Value,
    pub warnings: Vec<StoreWarning>,
}

impl Marker {
    pub fn read(root: &Path) -> Marker {
        let path = root.join(OPENDRAY_MARKER);
        match fsio::read_capped(&path, MAX_MARKER_BYTES) {
            Ok((_, true)) => Marker::broken(format!("larger than {MAX_MARKER_BYTES} bytes; not read")),
            Ok((bytes, false)) => Marker::parse(&bytes),
            // Opened with --dialect on a folder without a marker: nothing to report.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Marker::default(),
            Err(e) => Marker::broken(format!("cannot read: {e}")),
        }
    }

    fn parse(bytes: &[u8]) -> Marker {
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return Marker::broken(format!("not valid JSON: {e}")),
        };
        let Value::Object(map) = &value else {
            return Marker::broken("not a JSON object".into());
        };
        let mut warnings = Vec::new();
        match map.get("format").and_then(Value::as_str) {
            Some(EXPORT_FORMAT) => {}
            Some(other) => warnings.push(warning(format!("format `{other}` is not {EXPORT_FORMAT}; read as v1"))),
            None => warnings.push(warning(format!("has no `format` (expected \"{EXPORT_FORMAT}\")"))),
        }
        if !map.get("exported_at").is_some_and(Value::is_string) {
            warnings.push(warning("has no `exported_at` timestamp".into()));
        }
        Marker { fields: value, warnings }
    }

    fn broken(message: String) -> Marker {
        Marker { fields: Value::Null, warnings: vec![warning(message)] }
    }
}

fn warning(message: String) -> StoreWarning {
    StoreWarning {
        code: "export-marker".into(),
        message: format!("{OPENDRAY_MARKER}: {message}"),
        path: Some(OPENDRAY_MARKER.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_complete_marker_has_no_warning() {
        let m = Marker::parse(br#"{"format":"opendray-export/v1","exported_at":"2026-08-20T09:14:00+02:00"}"#);
        assert!(m.warnings.is_empty());
        assert_eq!(m.fields["format"], EXPORT_FORMAT);
    }

    #[test]
    fn odd_markers_are_warnings_naming_the_file() {
        let m = Marker::parse(br#"{"format":"opendray-export/v2"}"#);
        assert_eq!(m.warnings.len(), 2);
        assert!(m.warnings[0].message.starts_with("opendray-export.json: format `opendray-export/v2`"));
        assert_eq!(Marker::parse(b"[1]").warnings.len(), 1);
        assert_eq!(Marker::parse(b"\xff{").fields, Value::Null);
    }

    #[test]
    fn a_missing_marker_is_silent() {
        let t = tempfile::tempdir().unwrap();
        assert!(Marker::read(t.path()).warnings.is_empty());
    }
}
