//! Content hashes: what a changeset expects to find in a file, and object names in folio state.
use sha2::{Digest as _, Sha256};

/// `sha256:<hex>` of some bytes.
pub fn of(bytes: &[u8]) -> String {
    let sum = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in sum.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The hex part of a digest (object file names carry no `:`).
pub fn hex(digest: &str) -> &str {
    digest.strip_prefix("sha256:").unwrap_or(digest)
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_digest() {
        assert_eq!(super::of(b"abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(super::hex("sha256:ab"), "ab");
    }
}
