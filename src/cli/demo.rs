//! The demo store, embedded in the binary and unpacked on first use.
use std::path::PathBuf;

use include_dir::{Dir, include_dir};

static DEMO: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/demo");

/// Where the demo is unpacked: `$XDG_DATA_HOME/folio/demo-<version>` (or `~/.local/share/…`),
/// falling back to the temp directory. It is written once and then used as a normal store,
/// so changes made to it persist between runs.
pub fn location() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("folio").join(format!("demo-{}", env!("CARGO_PKG_VERSION")))
}

/// Unpack the demo store if it is not there yet and return its path.
pub fn materialize() -> std::io::Result<PathBuf> {
    let dir = location();
    let marker = dir.join(".folio-demo");
    if marker.exists() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir)?;
    DEMO.extract(&dir)?;
    std::fs::write(marker, env!("CARGO_PKG_VERSION"))?;
    Ok(dir)
}
