//! Refusing writes before anything is touched: `--read-only`, AIP-10 `sources/` (immutable by
//! the format's rules), and stores on a read-only file system or without write permission.
use std::fs;
use std::path::Path;

use crate::store::dialect::DialectKind;

/// Why a write to `paths` (relative to `root`) must not happen, if it must not.
pub fn refusal(root: &Path, kind: DialectKind, paths: &[&str], read_only: bool) -> Option<String> {
    if read_only {
        return Some("the store is open read-only (--read-only); nothing was written".into());
    }
    if let Some(why) = paths.iter().find_map(|p| kind.format().read_only_reason(p)) {
        return Some(why);
    }
    // A probe file tells a read-only mount from a writable one; permissions alone do not.
    // Named as folio's temporaries are, so one a crash leaves is removed by the next command.
    let probe = root.join(format!(".folio-probe.folio-tmp-{}-probe", std::process::id()));
    match fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = fs::remove_file(&probe);
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Some(format!("{}: cannot write here ({e}); nothing was written", root.display())),
    }
    for p in paths {
        if let Ok(meta) = fs::metadata(root.join(p))
            && meta.permissions().readonly()
        {
            return Some(format!("{p}: the file is read-only; nothing was written"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_sources_and_read_only_files() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            refusal(dir.path(), crate::store::dialect::vault::KIND, &["a.md"], true).unwrap().contains("--read-only")
        );
        assert!(
            refusal(dir.path(), crate::store::dialect::aip10::KIND, &["sources/x.md"], false)
                .unwrap()
                .contains("sources/")
        );
        assert_eq!(refusal(dir.path(), crate::store::dialect::vault::KIND, &["sources/x.md"], false), None);
        let f = dir.path().join("locked.md");
        fs::write(&f, "x").unwrap();
        let mut perms = fs::metadata(&f).unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&f, perms).unwrap();
        assert!(
            refusal(dir.path(), crate::store::dialect::vault::KIND, &["locked.md"], false)
                .unwrap()
                .contains("locked.md")
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "the probe leaves nothing behind");
    }
}
