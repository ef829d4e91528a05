//! `_manifest.json`: the provenance/dedup map `sourceId → {contentHash, slugs}`. folio checks
//! that every recorded source still has the bytes it was processed at (`source-modified`).
use std::io::Read;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256, Sha512};

use crate::store::dialect::StoreWarning;
use crate::store::model::entity::rule;
use crate::store::{read::fsio, read::resolve};

pub const MANIFEST: &str = "_manifest.json";
pub const MANIFEST_MISSING: &str = "manifest-missing";
pub const MANIFEST_INVALID: &str = "manifest-invalid";
/// A source the manifest records that is no longer on disk.
pub const SOURCE_MISSING: &str = "source-missing";
const MAX_MANIFEST_BYTES: u64 = 16 * 1024 * 1024;

/// Warnings about the manifest and the sources it records. `default_algo` is the workspace's
/// `sources.hashAlgo`, used when the manifest does not say.
pub fn check(root: &Path, default_algo: &str) -> Vec<StoreWarning> {
    let warn = |code: &str, message: String, path: &str| StoreWarning {
        code: code.to_string(),
        message,
        path: Some(path.to_string()),
    };
    let bytes = match fsio::read_capped(&root.join(MANIFEST), MAX_MANIFEST_BYTES) {
        Ok((_, true)) => {
            return vec![warn(
                MANIFEST_INVALID,
                format!("{MANIFEST}: larger than {MAX_MANIFEST_BYTES} bytes; not read"),
                MANIFEST,
            )];
        }
        Ok((b, false)) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let msg = format!("{MANIFEST} is missing (AIP-10 requires it); source hashes are not checked");
            return vec![warn(MANIFEST_MISSING, msg, MANIFEST)];
        }
        Err(e) => return vec![warn(MANIFEST_INVALID, format!("{MANIFEST}: cannot read: {e}"), MANIFEST)],
    };
    let doc: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!("{MANIFEST}: not valid JSON (line {}, column {}): {e}", e.line(), e.column());
            return vec![warn(MANIFEST_INVALID, msg, MANIFEST)];
        }
    };
    let Some(sources) = doc.get("sources").and_then(Value::as_object) else {
        return vec![warn(MANIFEST_INVALID, format!("{MANIFEST}: no `sources` object"), MANIFEST)];
    };
    let algo = doc.get("hashAlgo").and_then(Value::as_str).unwrap_or(default_algo);
    let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut warnings = Vec::new();
    for (source_id, entry) in sources {
        let recorded = match entry {
            Value::String(s) => Some(s.as_str()),
            other => other.get("contentHash").and_then(Value::as_str),
        };
        let Some(recorded) = recorded else {
            let msg = format!("{MANIFEST}: entry `{source_id}` has no contentHash");
            warnings.push(warn(MANIFEST_INVALID, msg, MANIFEST));
            continue;
        };
        let Some(rel) = source_path(source_id) else {
            let msg = format!("{MANIFEST}: entry `{source_id}` does not name a file under sources/");
            warnings.push(warn(MANIFEST_INVALID, msg, MANIFEST));
            continue;
        };
        let (entry_algo, expected) = match recorded.split_once(':') {
            Some((a, hex)) => (a, hex),
            None => (algo, recorded),
        };
        let path = root.join(&rel);
        // A symlink out of the store is never read, whatever the manifest says.
        match std::fs::canonicalize(&path) {
            Ok(real) if !real.starts_with(&canonical_root) => {
                let msg = format!("{rel}: symlink points outside the store; its hash is not checked");
                warnings.push(warn(rule::LINK_ESCAPES_ROOT, msg, &rel));
                continue;
            }
            Ok(_) => {}
            Err(_) => {
                let msg = format!("{rel}: recorded in {MANIFEST} but not on disk");
                warnings.push(warn(SOURCE_MISSING, msg, &rel));
                continue;
            }
        }
        match hash_file(&path, entry_algo) {
            Ok(Some(actual)) if actual.eq_ignore_ascii_case(expected.trim()) => {}
            Ok(Some(actual)) => warnings.push(warn(
                super::spec::SOURCE_MODIFIED,
                format!(
                    "{rel}: content changed since it was processed ({MANIFEST} records {entry_algo}:{}, the file is now {entry_algo}:{})",
                    short(expected),
                    short(&actual)
                ),
                &rel,
            )),
            Ok(None) => warnings.push(warn(
                MANIFEST_INVALID,
                format!("{rel}: hash algorithm `{entry_algo}` is not supported (sha256, sha512); not checked"),
                &rel,
            )),
            Err(e) => warnings.push(warn(SOURCE_MISSING, format!("{rel}: cannot read: {e}"), &rel)),
        }
    }
    warnings
}

/// The store-relative path of a manifest key (`sources/x.pdf`, or `x.pdf` under `sources/`);
/// `None` when it would leave `sources/`.
fn source_path(source_id: &str) -> Option<String> {
    let id = source_id.trim().trim_start_matches("./");
    let joined = if id.starts_with("sources/") { id.to_string() } else { format!("sources/{id}") };
    resolve::normalize(&joined).filter(|p| p.starts_with("sources/"))
}

/// Hex digest of a file, streamed; `None` for an algorithm folio cannot compute.
fn hash_file(path: &Path, algo: &str) -> std::io::Result<Option<String>> {
    match algo.trim().to_ascii_lowercase().as_str() {
        "sha256" => digest::<Sha256>(path).map(Some),
        "sha512" => digest::<Sha512>(path).map(Some),
        _ => Ok(None),
    }
}

fn digest<D: Digest>(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = D::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The first characters of a digest: enough to tell two apart in a message.
fn short(hex: &str) -> String {
    hex.trim().chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELLO_SHA256: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    fn store(manifest: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sources")).unwrap();
        std::fs::write(dir.path().join("sources/a.md"), "hello").unwrap();
        std::fs::write(dir.path().join(MANIFEST), manifest).unwrap();
        dir
    }

    fn codes(w: &[StoreWarning]) -> Vec<&str> {
        w.iter().map(|w| w.code.as_str()).collect()
    }

    #[test]
    fn matching_hashes_in_both_spellings_are_quiet() {
        let m = format!(
            r#"{{"version":1,"hashAlgo":"sha256","sources":{{"sources/a.md":{{"contentHash":"{HELLO_SHA256}","slugs":["x"]}},"a.md":{{"contentHash":"sha256:{}"}}}}}}"#,
            HELLO_SHA256.to_uppercase()
        );
        let dir = store(&m);
        assert!(check(dir.path(), "sha256").is_empty());
    }

    #[test]
    fn a_changed_source_is_reported_with_both_hashes() {
        let dir = store(r#"{"sources":{"sources/a.md":{"contentHash":"sha256:00ff"}}}"#);
        let w = check(dir.path(), "sha256");
        assert_eq!(codes(&w), [crate::store::dialect::aip10::spec::SOURCE_MODIFIED]);
        assert_eq!(w[0].path.as_deref(), Some("sources/a.md"));
        assert!(w[0].message.contains("sha256:00ff") && w[0].message.contains("sha256:2cf24dba5fb0"));
    }

    #[test]
    fn bad_manifests_and_entries_are_warnings() {
        let dir = store("{not json");
        assert_eq!(codes(&check(dir.path(), "sha256")), [MANIFEST_INVALID]);
        std::fs::remove_file(dir.path().join(MANIFEST)).unwrap();
        assert_eq!(codes(&check(dir.path(), "sha256")), [MANIFEST_MISSING]);
        let dir = store(
            r#"{"sources":{"../../etc/passwd":{"contentHash":"ab"},"sources/gone.pdf":{"contentHash":"ab"},
               "sources/a.md":{"contentHash":"blake3:ab"},"sources/b":{}}}"#,
        );
        let w = check(dir.path(), "sha256");
        assert_eq!(codes(&w), [MANIFEST_INVALID, SOURCE_MISSING, MANIFEST_INVALID, MANIFEST_INVALID]);
        assert!(w[2].message.contains("blake3"));
    }
}
